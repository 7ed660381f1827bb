import { z } from 'zod';
import { credentialNameOf, type CredentialRef } from '@shared/contracts/credentials';
import type { OpenAIModelInfo, OpenAIStatus } from '@shared/contracts/host-api';
import { isHostAllowed, type PrivacyPolicy } from '@shared/policy/privacy';
import { parseEndpoint, pinnedFetch, type ModelEndpoint } from './endpoint';
import { formatMs, NetworkFailure, networkCode, startHttpCall, type FetchFn } from './http-call';
import { openAIErrorMessage, redactSecrets } from './openai-errors';
import { createOpenAICompatibleProvider, displayBaseUrl, type OpenAICompatibleRef } from './openai-compatible-provider';
import { ProviderError } from './provider';
import { CredentialStoreError, credentialErrorText, type CredentialStore } from '../credentials/credential-store';
import type { OfferedTool } from '@shared/contracts/tool-snapshot';

/** Short on purpose: a person is waiting for a picker to fill. */
const DEFAULT_LIST_TIMEOUT_MS = 4000;
/** A probe is one real model call: a cold local model may need a while to load. */
const DEFAULT_PROBE_TIMEOUT_MS = 30_000;
/** A model list is small; a server sending more is not one we can use. */
const MAX_LIST_BYTES = 2 * 1024 * 1024;

// GET /models as OpenAI answers it (llama.cpp, LM Studio, vLLM… too); extra fields are ignored.
const ModelList = z.object({ data: z.array(z.object({ id: z.string().min(1), owned_by: z.string().nullish() })) });

export interface OpenAIStatusRequest {
  base_url: string;
  api_key?: CredentialRef;
  probe?: { model: string; mode: 'structured' | 'tools' };
}

export interface OpenAIStatusOptions {
  /** The key's value, read from the keychain by the host; undefined when there is none (or none is referenced). */
  apiKey?: string;
  /** Why the referenced key could not be read (not in the keychain, keychain unreachable): said instead of calling. */
  keyProblem?: string;
  privacy: PrivacyPolicy;
  fetch?: FetchFn;
  timeoutMs?: number;
  probeTimeoutMs?: number;
}

/**
 * Is an OpenAI-compatible server there, does it take the key, which models does it list — and,
 * when asked, does `probe.model` answer one tiny call in its mode. Never throws: every failure is
 * a message saying what to do. The key goes to `base_url` alone (no redirect is followed), only
 * when the privacy policy allows that host, and is scrubbed from anything the server says back.
 */
export async function getOpenAIStatus(request: OpenAIStatusRequest, options: OpenAIStatusOptions): Promise<OpenAIStatus> {
  const shown = displayBaseUrl(request.base_url);
  const base = { base_url: shown, models: [] as OpenAIModelInfo[] };
  const parsed = parseEndpoint(request.base_url);
  if (!parsed.ok) return { ...base, reachable: false, allowed: false, error: `This address ${parsed.problem}` };
  const { endpoint } = parsed;
  if (!endpoint.local && !isHostAllowed(options.privacy, endpoint.host)) {
    return {
      ...base,
      reachable: false,
      allowed: false,
      error: `${endpoint.host} is not allowed by the privacy policy, so Steward sends it nothing (not even this check) — allow it in Settings › Privacy, or use a local server`,
    };
  }
  if (options.keyProblem !== undefined) return { ...base, reachable: false, allowed: true, error: options.keyProblem };

  const listed = await listModels(endpoint, shown, request.api_key, options);
  if (!listed.ok) return { ...base, reachable: listed.reachable, allowed: true, error: listed.error };
  const status: OpenAIStatus = { ...base, reachable: true, allowed: true, models: listed.models };
  if (request.probe === undefined) return status;
  return { ...status, probe: await probe(request, endpoint, options) };
}

type Listed = { ok: true; models: OpenAIModelInfo[] } | { ok: false; reachable: boolean; error: string };

async function listModels(endpoint: ModelEndpoint, shown: string, apiKeyRef: CredentialRef | undefined, options: OpenAIStatusOptions): Promise<Listed> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LIST_TIMEOUT_MS;
  const call = startHttpCall({ fetch: options.fetch, timeoutMs, maxReplyBytes: MAX_LIST_BYTES });
  const key = options.apiKey?.trim();
  try {
    const url = new URL(endpoint.href);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/models`;
    const response = await pinnedFetch(endpoint, call.fetch)(url.href, {
      method: 'GET',
      headers: { accept: 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    });
    const text = await response.text();
    if (response.status === 401 || response.status === 403) return { ok: false, reachable: true, error: refusedKey(shown, response.status, apiKeyRef) };
    if (response.status >= 300 && response.status < 400) {
      return { ok: false, reachable: true, error: `${shown} redirected the request (HTTP ${response.status}) — set the base URL to the final address (Steward follows no redirect)` };
    }
    if (response.status === 404) return { ok: false, reachable: true, error: `${shown}/models does not exist (HTTP 404) — check the base URL (OpenAI-compatible servers usually end it in /v1)` };
    if (response.status < 200 || response.status > 299) {
      const said = redactSecrets(openAIErrorMessage(text), key);
      return { ok: false, reachable: true, error: `${shown} answered ${response.status}${said ? `: ${said}` : ''}` };
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, reachable: true, error: `${shown}/models answered with something that is not JSON — is this an OpenAI-compatible API (the base URL usually ends in /v1)?` };
    }
    const list = ModelList.safeParse(json);
    if (!list.success) return { ok: false, reachable: true, error: `${shown}/models listed its models in an unexpected shape` };
    return { ok: true, models: list.data.data.map((m) => ({ id: m.id, ...(m.owned_by ? { owned_by: m.owned_by } : {}) })) };
  } catch (err) {
    return { ok: false, reachable: false, error: unreachable(err, shown, call.stopped(), timeoutMs) };
  } finally {
    call.dispose();
  }
}

/** One tiny call through the real provider, so its answer is judged exactly as a run's would be. */
async function probe(request: OpenAIStatusRequest, endpoint: ModelEndpoint, options: OpenAIStatusOptions): Promise<NonNullable<OpenAIStatus['probe']>> {
  const { model, mode } = request.probe ?? { model: '', mode: 'structured' };
  const ref: OpenAICompatibleRef = {
    provider: 'openai_compatible',
    base_url: request.base_url,
    model,
    mode,
    timeout_ms: options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
    ...(request.api_key ? { api_key: request.api_key } : {}),
  };
  const started = Date.now();
  try {
    const provider = createOpenAICompatibleProvider(ref, 'student', { apiKey: options.apiKey, fetch: options.fetch, endpoint });
    const reply = await provider.complete({
      role: 'student',
      messages: [{ role: 'user', content: 'This is a connection check. Answer with {"ok": true}, or call the ping tool.' }],
      ...(mode === 'tools'
        ? { tools: [PING_TOOL] }
        : { format: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false } }),
    });
    const latency_ms = reply.latency_ms ?? Date.now() - started;
    const answered = mode === 'tools' ? (reply.tool_calls.length > 0 ? 'called a tool' : 'answered (without calling the offered tool)') : 'answered';
    return { ok: true, model, mode, latency_ms, message: `${model} ${answered} in ${formatMs(latency_ms)} (${mode === 'tools' ? 'native tool calls' : 'structured output'})` };
  } catch (err) {
    const message = err instanceof ProviderError ? err.message : 'the probe call failed';
    return { ok: false, model, mode, message: redactSecrets(message, options.apiKey?.trim()) };
  }
}

/** The one tool a tools-mode probe offers (never executed: the probe only reads the reply). */
const PING_TOOL: OfferedTool = {
  name: 'ping',
  server: 'steward-probe',
  description: 'Answers the connection check.',
  input_schema: { type: 'object', properties: {}, additionalProperties: false },
  schema_hash: 'probe-ping-v1',
  effect: { effect: 'read', requires_user_confirmation: false, idempotency_supported: true, sensitive_arguments: [] },
  effect_source: 'shipped',
};

/** Never echoes what the server said about the key: some servers repeat the key they were sent. */
function refusedKey(shown: string, status: number, apiKeyRef: CredentialRef | undefined): string {
  if (apiKeyRef === undefined) return `${shown} wants an API key (HTTP ${status}) — store it in Settings › Credentials and pick it as the profile's API key`;
  return `${shown} refused the API key ${apiKeyRef} (HTTP ${status}) — update it with \`steward credentials set ${credentialNameOf(apiKeyRef)}\` or in Settings › Credentials`;
}

function unreachable(err: unknown, shown: string, stopped: string | undefined, timeoutMs: number): string {
  if (stopped === 'timeout') return `${shown} did not answer within ${formatMs(timeoutMs)} — is the server running? Check the base URL`;
  if (stopped === 'too_large') return `${shown}/models sent more than a model list — is this an OpenAI-compatible API?`;
  const code = err instanceof NetworkFailure ? networkCode(err.cause) : networkCode(err);
  const dns = code === 'ENOTFOUND' || code === 'EAI_AGAIN';
  return `Nothing answers at ${shown}${code ? ` (${code})` : ''} — ${dns ? 'check the address and the network' : 'start the server, or check the base URL and its port'}`;
}

/**
 * The referenced key from the host's keychain, or why it could not be read (named by reference,
 * never by value). No reference: no key, nothing to read.
 */
export async function readApiKey(store: Pick<CredentialStore, 'get'>, ref: CredentialRef | undefined): Promise<{ apiKey?: string; keyProblem?: string }> {
  if (ref === undefined) return {};
  const name = credentialNameOf(ref);
  try {
    const value = await store.get(name);
    if (value === undefined || value.trim() === '') return { keyProblem: `The API key ${ref} is not in the keychain — add it in Settings › Credentials (or \`steward credentials set ${name}\`)` };
    return { apiKey: value };
  } catch (err) {
    // The plain words (no D-Bus addresses, no library names): this is shown in the app.
    const why = err instanceof CredentialStoreError ? credentialErrorText(err) : 'the keychain could not be read';
    return { keyProblem: `The API key ${ref} could not be read: ${why}` };
  }
}
