import { useEffect, useMemo, useState } from 'react';
import type { ProfileRow } from '../db/db';
import type { HostClient } from '../host/host-client';
import { openAIServersOf, type OpenAIServerOptions } from './model-options';
import { openAIStatus } from './use-openai-status';

/**
 * The OpenAI-compatible servers the user's profiles use, each with what the host found there
 * (shared answers). A new `round` (above 0) asks each server again rather than reusing an answer.
 */
export function useOpenAIServers(client: Pick<HostClient, 'request'>, profiles: readonly ProfileRow[] | undefined, round = 0): OpenAIServerOptions[] {
  const servers = useMemo(() => openAIServersOf(profiles ?? []), [profiles]);
  const serversKey = servers.map((t) => `${t.base_url}|${t.api_key ?? ''}`).join(',');
  const [found, setFound] = useState<Record<string, OpenAIServerOptions['status']>>({});
  useEffect(() => {
    let live = true;
    for (const t of servers) {
      const key = `${t.base_url}|${t.api_key ?? ''}`;
      openAIStatus(client, { base_url: t.base_url, ...(t.api_key ? { api_key: t.api_key } : {}) }, { fresh: round > 0 }).then(
        (status) => live && setFound((f) => ({ ...f, [key]: status })),
        (err: unknown) => live && setFound((f) => ({ ...f, [key]: { error: `could not ask the host: ${err instanceof Error ? err.message : String(err)}` } })),
      );
    }
    return () => {
      live = false;
    };
    // The servers' identity, not the array's: a live query hands a new array on every change.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, serversKey, round]);
  return servers.map((template) => ({ template, status: found[`${template.base_url}|${template.api_key ?? ''}`] }));
}
