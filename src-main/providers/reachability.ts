import { modelLabel, type ModelRole } from '@shared/contracts/model';
import { pinnedFetch, type ModelEndpoint, type RemoteModelRef } from './endpoint';
import { formatMs, NetworkFailure, networkCode, startHttpCall, type FetchFn } from './http-call';

/** Short: a server that is there answers a model list at once, even while it loads a model. */
export const DEFAULT_REACHABILITY_TIMEOUT_MS = 5000;

export type Reachability = { ok: true } | { ok: false; message: string };

/**
 * Is anyone answering at the model's address? One cheap GET (Ollama `/api/version`, an
 * OpenAI-compatible server's `/models`) without the API key and without a prompt. Any HTTP answer
 * counts as reachable, an error status too: what the server then says about the model or the key
 * is the model call's to report. Only nobody answering (refused, no such host, silence until the
 * timeout) is unreachable. A cancelled check is not a verdict: it reports reachable, and the run
 * sees its own cancellation. Never throws.
 */
export async function checkReachable(
  ref: RemoteModelRef,
  role: ModelRole,
  endpoint: ModelEndpoint,
  options: { fetch?: FetchFn; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<Reachability> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_REACHABILITY_TIMEOUT_MS;
  const call = startHttpCall({ fetch: options.fetch, signal: options.signal, timeoutMs });
  try {
    const response = await pinnedFetch(endpoint, call.fetch)(probeUrl(ref, endpoint), { method: 'GET' });
    await response.body?.cancel().catch(() => undefined);
    return { ok: true };
  } catch (err) {
    const stopped = call.stopped();
    if (stopped === 'cancelled') return { ok: true };
    const start = `the ${role} model ${modelLabel(ref)} is not reachable: `;
    const todo = ref.provider === 'ollama' ? 'start Ollama (`ollama serve`) or check the address' : 'start the server or check base_url';
    if (stopped === 'timeout') return { ok: false, message: `${start}${endpoint.display} did not answer within ${formatMs(timeoutMs)} — ${todo}` };
    const code = err instanceof NetworkFailure ? networkCode(err.cause) : networkCode(err);
    const dns = code === 'ENOTFOUND' || code === 'EAI_AGAIN';
    return { ok: false, message: `${start}nothing answers at ${endpoint.display}${code ? ` (${code})` : ''} — ${dns ? 'check the address and the network' : todo}` };
  } finally {
    call.dispose();
  }
}

/** The endpoint's own path kept (a proxy prefix, `/v1`), an OpenAI-compatible query too (an api-version). */
function probeUrl(ref: RemoteModelRef, endpoint: ModelEndpoint): string {
  const url = new URL(endpoint.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${ref.provider === 'ollama' ? '/api/version' : '/models'}`;
  // The Ollama client sends no query either.
  if (ref.provider === 'ollama') url.search = '';
  return url.href;
}
