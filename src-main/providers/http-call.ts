/**
 * One HTTP call to a model server, with what plain `fetch` lacks for our purposes: the caller's
 * AbortSignal combined with a timeout (and told apart afterwards: cancelled or timed out), and
 * failures of the transport itself marked, so "nobody listening" is told apart from "the server
 * said no". Used by the Ollama provider (through the `ollama` client) and the OpenAI-compatible one.
 */

export type FetchFn = typeof fetch;

/** fetch itself failed (connection refused, DNS, reset): the server was not reached. */
export class NetworkFailure extends Error {
  constructor(cause: unknown) {
    super(`network failure: ${networkCode(cause) ?? (cause instanceof Error ? cause.message : String(cause))}`, { cause });
    this.name = 'NetworkFailure';
  }
}

export interface HttpCall {
  /** Every request made through it carries this call's signal. */
  readonly fetch: FetchFn;
  /** Why the call was stopped, if it was. */
  stopped(): 'cancelled' | 'timeout' | undefined;
  /** Clears the timer and the listener on the caller's signal. Always call it. */
  dispose(): void;
}

export function startHttpCall(options: { fetch?: FetchFn; signal?: AbortSignal; timeoutMs: number }): HttpCall {
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

export function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
