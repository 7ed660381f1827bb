import { useCallback, useEffect, useState } from 'react';
import type { CredentialRef } from '@shared/contracts/credentials';
import type { OpenAIStatus } from '@shared/contracts/host-api';
import { checkModelUrl } from '@shared/contracts/model-url';
import type { HostClient } from '../host/host-client';

/**
 * An OpenAI-compatible server's health and model list, asked of the host (providers.openai_status):
 * the page names the key (keychain:NAME) and never sees it. Answers are shared for a short while
 * per (client, address, key), so every card and picker showing one server asks it once.
 */

type Client = Pick<HostClient, 'request'>;
export type OpenAIEndpoint = { base_url: string; api_key?: CredentialRef };

const FRESH_MS = 15_000;
/** Typing an address asks once it rests, not at every keystroke. */
const SETTLE_MS = 400;

const cache = new WeakMap<Client, Map<string, { at: number; answer: Promise<OpenAIStatus> }>>();
const keyOf = (e: OpenAIEndpoint) => `${e.base_url}\u0000${e.api_key ?? ''}`;

/** The host's answer for an endpoint, shared while fresh; a failed request is never kept. */
export function openAIStatus(client: Client, endpoint: OpenAIEndpoint, options: { fresh?: boolean } = {}): Promise<OpenAIStatus> {
  let byKey = cache.get(client);
  if (!byKey) cache.set(client, (byKey = new Map()));
  const key = keyOf(endpoint);
  const held = byKey.get(key);
  if (held && !options.fresh && Date.now() - held.at < FRESH_MS) return held.answer;
  const answer = client.request('providers.openai_status', { base_url: endpoint.base_url, ...(endpoint.api_key ? { api_key: endpoint.api_key } : {}) });
  const entry = { at: Date.now(), answer };
  byKey.set(key, entry);
  answer.catch(() => {
    if (byKey.get(key) === entry) byKey.delete(key);
  });
  return answer;
}

export type OpenAIStatusState =
  | { state: 'idle' }
  | { state: 'checking' }
  | { state: 'done'; status: OpenAIStatus }
  | { state: 'failed'; message: string };

/** The status of `endpoint` (undefined: nothing to check), re-asked when it changes or on `refresh`. */
export function useOpenAIStatus(client: Client, endpoint: OpenAIEndpoint | undefined): OpenAIStatusState & { refresh: () => void } {
  const [result, setResult] = useState<{ key: string; state: OpenAIStatusState }>();
  const [round, setRound] = useState(0);
  const base = endpoint?.base_url;
  const apiKey = endpoint?.api_key;
  // An address the contract would refuse is not worth a request: the editor says what is wrong with it.
  const checkable = base !== undefined && checkModelUrl(base).ok;
  const key = `${round}\u0000${base ?? ''}\u0000${apiKey ?? ''}`;
  useEffect(() => {
    if (!checkable || base === undefined) return;
    let live = true;
    const timer = window.setTimeout(() => {
      openAIStatus(client, { base_url: base, ...(apiKey ? { api_key: apiKey } : {}) }, { fresh: round > 0 }).then(
        (status) => live && setResult({ key, state: { state: 'done', status } }),
        (err: unknown) => live && setResult({ key, state: { state: 'failed', message: err instanceof Error ? err.message : String(err) } }),
      );
    }, SETTLE_MS);
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [client, base, apiKey, round, checkable, key]);
  const refresh = useCallback(() => setRound((r) => r + 1), []);
  // An answer for another address (or an older round) is not this one's: until this one's comes, it is being checked.
  const state: OpenAIStatusState = !checkable ? { state: 'idle' } : result?.key === key ? result.state : { state: 'checking' };
  return { ...state, refresh };
}
