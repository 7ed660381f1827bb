/**
 * One HTTP call to a model server, with what plain `fetch` lacks for our purposes: the caller's
 * AbortSignal combined with a timeout (and told apart afterwards: cancelled or timed out), and
 * failures of the transport itself marked, so "nobody listening" is told apart from "the server
 * said no". Bodies are read through a byte counter that aborts the request once past
 * `maxReplyBytes`, so a runaway reply is never buffered whole. Used by the Ollama provider
 * (through the `ollama` client) and the OpenAI-compatible one.
 */

export type FetchFn = typeof fetch;

/** fetch itself failed (connection refused, DNS, reset): the server was not reached. */
export class NetworkFailure extends Error {
  constructor(cause: unknown) {
    super(`network failure: ${networkCode(cause) ?? (cause instanceof Error ? cause.message : String(cause))}`, { cause });
    this.name = 'NetworkFailure';
  }
}

/** The body passed the call's byte limit; the request was aborted there. */
export class ReplyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the reply passed ${formatBytes(limit)}`);
    this.name = 'ReplyTooLarge';
  }
}

export type StopReason = 'cancelled' | 'timeout' | 'too_large';

export interface HttpCall {
  /** Every request made through it carries this call's signal; every body is byte-limited. */
  readonly fetch: FetchFn;
  /** Why the call was stopped, if it was. */
  stopped(): StopReason | undefined;
  /** Status and headers of the last response (e.g. Retry-After, when a client hides them). */
  lastResponse(): { status: number; headers: Headers } | undefined;
  /** Clears the timer and the listener on the caller's signal. Always call it. */
  dispose(): void;
}

export function startHttpCall(options: { fetch?: FetchFn; signal?: AbortSignal; timeoutMs: number; maxReplyBytes?: number }): HttpCall {
  const base = options.fetch ?? globalThis.fetch;
  const controller = new AbortController();
  let reason: StopReason | undefined;
  let last: { status: number; headers: Headers } | undefined;
  const stop = (why: StopReason): void => {
    if (reason !== undefined) return;
    reason = why;
    controller.abort(new Error(why));
  };
  const onAbort = (): void => stop('cancelled');
  if (options.signal?.aborted) stop('cancelled');
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop('timeout'), options.timeoutMs);

  const wrapped: FetchFn = async (input, init) => {
    let response: Response;
    try {
      response = await base(input, { ...init, signal: controller.signal });
    } catch (err) {
      if (controller.signal.aborted) throw err;
      throw new NetworkFailure(err);
    }
    last = { status: response.status, headers: response.headers };
    const max = options.maxReplyBytes;
    return max === undefined ? response : limitBody(response, max, () => stop('too_large'));
  };

  return {
    fetch: wrapped,
    stopped: () => reason,
    lastResponse: () => last,
    dispose: () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * The same response with its body counted as it is read: past `max` bytes the request is aborted
 * (the connection closes, the server stops sending) and reading fails with ReplyTooLarge. A
 * declared Content-Length over the limit stops it before a byte is read.
 */
function limitBody(response: Response, max: number, abort: () => void): Response {
  const source = response.body;
  if (source === null) return response;
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > max) {
    abort();
    throw new ReplyTooLarge(max);
  }
  const reader = source.getReader();
  let seen = 0;
  const limited = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      seen += value.byteLength;
      if (seen > max) {
        abort();
        controller.error(new ReplyTooLarge(max));
        return;
      }
      controller.enqueue(value);
    },
    cancel: (why) => reader.cancel(why),
  });
  return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * Transport failures that say the connection broke mid-call rather than that nobody is there:
 * worth another try. Anything else (refused, no such host, a TLS error) will not heal by itself.
 */
const TRANSIENT_NETWORK_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

export function isTransientNetworkFailure(err: unknown): boolean {
  const code = networkCode(err);
  return code !== undefined && TRANSIENT_NETWORK_CODES.has(code);
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

/** Says what happened and how to allow more, when the model really answers at that length. */
export function replyTooLargeMessage(label: string, limit: number): string {
  return `${label} sent a reply larger than ${formatBytes(limit)}; Steward stopped reading it there — if the model really answers at that length, raise the model's max_reply_bytes (at most 64 MiB)`;
}

/** 1048576 → "1 MiB", 65536 → "64 KiB", 1500 → "1500 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

export function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
