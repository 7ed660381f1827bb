import {
  formatMs,
  isTransientNetworkFailure,
  NetworkFailure,
  networkCode,
  ReplyTooLarge,
  replyTooLargeMessage,
  startHttpCall,
  type HttpCall,
} from './http-call';
import { displayModelUrl, normalizeOllamaHost } from '@shared/contracts/model-url';
import { ProviderError } from './provider';
import { retryAfterMs } from './retry';

/**
 * One call to an Ollama server through the `ollama` client, with what the client lacks:
 * the client can only abort streams, so every request goes through our own `fetch` carrying our
 * own AbortSignal (see http-call.ts); and Ollama's failures as messages a person can act on.
 */

import { DEFAULT_OLLAMA_HOST } from '@shared/policy/privacy';
export { DEFAULT_OLLAMA_HOST };

export type { FetchFn } from './http-call';
export { NetworkFailure, networkCode } from './http-call';

/** A call to Ollama is a plain HTTP call: pass its `fetch` to `new Ollama({ host, fetch })`. */
export type OllamaCall = HttpCall;
export const startOllamaCall = startHttpCall;

/** Shown wherever Ollama cannot be reached; says what to do about it. */
export function unreachableMessage(host: string): string {
  return `Ollama is not reachable at ${displayHost(host)} — start it with \`ollama serve\` or pick the replay models`;
}

export function modelMissingMessage(model: string): string {
  return `model "${model}" is not installed in Ollama — run \`ollama pull ${model}\``;
}

/** The address as messages show it: completed as OLLAMA_HOST forms are, never its userinfo or query. */
export function displayHost(host: string): string {
  return displayModelUrl(normalizeOllamaHost(host));
}

/** An Ollama address Steward refuses (model-url.ts): says what is wrong, never repeats it. */
export function invalidAddressMessage(problem: string): string {
  return `this is not a valid Ollama address: it ${problem} (expected e.g. ${DEFAULT_OLLAMA_HOST})`;
}

export interface FailureContext {
  host: string;
  model: string;
  role: string;
  timeoutMs: number;
  call: OllamaCall;
  /** The reply limit the call was started with (for the reply_too_large message). */
  maxReplyBytes?: number;
}

/** Every failure of an Ollama call becomes a ProviderError a person can act on. */
export function toProviderError(err: unknown, ctx: FailureContext): ProviderError {
  if (err instanceof ProviderError) return err;
  // Checked first: an abort surfaces as whatever the client was doing when it happened.
  const stopped = ctx.call.stopped();
  if (stopped === 'cancelled') return new ProviderError('cancelled', `the ${ctx.role} model call was cancelled`);
  if (stopped === 'timeout') {
    return new ProviderError(
      'timeout',
      `ollama:${ctx.model} did not answer within ${formatMs(ctx.timeoutMs)} — raise timeout_ms, or pick a smaller or already loaded model`,
    );
  }
  if (stopped === 'too_large' || err instanceof ReplyTooLarge) {
    return new ProviderError('reply_too_large', replyTooLargeMessage(`ollama:${ctx.model}`, ctx.maxReplyBytes ?? 0));
  }
  if (isTransientNetworkFailure(err)) {
    return new ProviderError('connection_lost', `the connection to Ollama at ${displayHost(ctx.host)} was lost during the call (${networkCode(err) ?? 'reset'})`);
  }
  if (err instanceof NetworkFailure) return new ProviderError('unreachable', unreachableMessage(ctx.host));
  const response = responseError(err);
  if (response) {
    if (response.status === 404 && /model/i.test(response.message) && /not found/i.test(response.message)) {
      return new ProviderError('model_missing', modelMissingMessage(ctx.model));
    }
    if (/does not support tools/i.test(response.message)) {
      return new ProviderError(
        'bad_response',
        `model "${ctx.model}" does not support native tool calling in Ollama — set its mode to "structured"`,
      );
    }
    const said = `Ollama at ${displayHost(ctx.host)} answered ${response.status}: ${response.message}`;
    // The client hides the headers; the call kept them (Retry-After).
    const wait = retryAfterMs(ctx.call.lastResponse()?.headers.get('retry-after'), Date.now());
    if (response.status === 429) return new ProviderError('rate_limited', `${said} — wait and run again`, wait);
    if (response.status >= 500) return new ProviderError('server_error', said, wait);
    return new ProviderError('bad_response', said);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ProviderError('bad_response', `unexpected reply from Ollama at ${displayHost(ctx.host)}: ${message}`);
}

/** The client's ResponseError (not exported by its types): an HTTP error status with Ollama's `error` text. */
function responseError(err: unknown): { status: number; message: string } | undefined {
  if (!(err instanceof Error) || err.name !== 'ResponseError') return undefined;
  const status = (err as Error & { status_code?: unknown }).status_code;
  return typeof status === 'number' ? { status, message: err.message } : undefined;
}
