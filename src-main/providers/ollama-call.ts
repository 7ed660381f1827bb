import { ProviderError } from './provider';

/**
 * One call to an Ollama server through the `ollama` client, with what the client lacks:
 * the client can only abort streams, so every request goes through our own `fetch` carrying our
 * own AbortSignal (the caller's signal combined with a timeout). The wrapper also marks failures of
 * the transport itself, so "nobody listening" is told apart from "Ollama said no".
 */

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';

export type FetchFn = typeof fetch;

/** fetch itself failed (connection refused, DNS, reset): the server was not reached. */
export class NetworkFailure extends Error {
  constructor(cause: unknown) {
    super(`network failure: ${networkCode(cause) ?? (cause instanceof Error ? cause.message : String(cause))}`, { cause });
    this.name = 'NetworkFailure';
  }
}

export interface OllamaCall {
  /** Pass to `new Ollama({ host, fetch })`: every request carries this call's signal. */
  readonly fetch: FetchFn;
  /** Why the call was stopped, if it was. */
  stopped(): 'cancelled' | 'timeout' | undefined;
  /** Clears the timer and the listener on the caller's signal. Always call it. */
  dispose(): void;
}

export function startOllamaCall(options: { fetch?: FetchFn; signal?: AbortSignal; timeoutMs: number }): OllamaCall {
  const base = options.fetch ?? globalThis.fetch;
  const controller = new AbortController();
  let reason: 'cancelled' | 'timeout' | undefined;
  const stop = (why: 'cancelled' | 'timeout'): void => {
    if (reason !== undefined) return;
    reason = why;
    controller.abort(new Error(why));
  };
  const onAbort = (): void => stop('cancelled');
  if (options.signal?.aborted) stop('cancelled');
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop('timeout'), options.timeoutMs);

  const wrapped: FetchFn = async (input, init) => {
    try {
      return await base(input, { ...init, signal: controller.signal });
    } catch (err) {
      if (controller.signal.aborted) throw err;
      throw new NetworkFailure(err);
    }
  };

  return {
    fetch: wrapped,
    stopped: () => reason,
    dispose: () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    },
  };
}

/** Shown wherever Ollama cannot be reached; says what to do about it. */
export function unreachableMessage(host: string): string {
  return `Ollama is not reachable at ${displayHost(host)} — start it with \`ollama serve\` or pick the replay models`;
}

export function modelMissingMessage(model: string): string {
  return `model "${model}" is not installed in Ollama — run \`ollama pull ${model}\``;
}

export function displayHost(host: string): string {
  return host.replace(/\/+$/, '');
}

export interface FailureContext {
  host: string;
  model: string;
  role: string;
  timeoutMs: number;
  call: OllamaCall;
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
    return new ProviderError('bad_response', `Ollama at ${displayHost(ctx.host)} answered ${response.status}: ${response.message}`);
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

/** The errno-style code somewhere in a fetch failure's cause chain (undici nests it, sometimes in an AggregateError). */
export function networkCode(err: unknown, depth = 0): string | undefined {
  if (depth > 5 || typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  if (err instanceof AggregateError) {
    for (const inner of err.errors) {
      const found = networkCode(inner, depth + 1);
      if (found) return found;
    }
  }
  return networkCode((err as { cause?: unknown }).cause, depth + 1);
}

function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
