import { formatBytes } from '../providers/http-call';

/**
 * The most one message of an MCP server may take, in bytes: one HTTP answer, one event of an SSE
 * stream, one line of a stdio server. What a model is shown of a tool's answer is cut to 100,000
 * characters (engine/boundary-actors.ts); as JSON that is at most 6 bytes a character (`\uXXXX`),
 * twice when a result carries its text as content and structuredContent: about 1.2 MB. Images are
 * only ever summarised by size, but a screenshot in base64 is 2–5 MB. 8 MiB leaves room for both,
 * and reading that much raises the client's peak memory by about 45 MB (measured: a 16 MB answer
 * 60 MB, 200 MB 650 MB, 400 MB 1.26 GB — the SDK decodes, parses and validates it whole).
 */
export const MAX_MCP_MESSAGE_BYTES = 8 * 1024 * 1024;

/** A message passed the bound: reading stopped there and the connection it came on was closed. */
export class AnswerTooLarge extends Error {
  override readonly name = 'AnswerTooLarge';
  constructor(readonly limit: number) {
    super(`the server's answer passed ${formatBytes(limit)}; Steward stopped reading it`);
  }
}

/**
 * Whether an error is a cut of this bound, or the Streamable HTTP transport's report of a stream
 * that ended in one (it keeps only the text: "SSE stream disconnected: AnswerTooLarge: …"): not a
 * server that went away.
 */
export function isAnswerCut(error: unknown): boolean {
  if (error instanceof AnswerTooLarge) return true;
  return error instanceof Error && error.message.startsWith('SSE stream disconnected: AnswerTooLarge: ');
}

/**
 * The same response with its body counted as it is read. An event stream is counted per event (a
 * long call may send many progress events); any other body whole. Past `limit` — or at once, when
 * a declared Content-Length is over it — `onCut` is told, the body is cancelled (the fetch aborts,
 * the connection closes, the server stops sending) and reading fails with AnswerTooLarge.
 * `ended` resolves once the body ended, whichever way; it never rejects.
 */
export function boundedAnswer(response: Response, limit: number, onCut: (error: AnswerTooLarge) => void): { response: Response; ended: Promise<void> } {
  const source = response.body;
  if (source === null) return { response, ended: Promise.resolve() };
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  const counter = isEventStream(response) ? new EventCounter() : undefined;
  const reader = source.getReader();
  let total = 0;
  const stop = (controller: ReadableStreamDefaultController<Uint8Array>): void => {
    const cut = new AnswerTooLarge(limit);
    end();
    onCut(cut);
    void reader.cancel(cut).catch(() => undefined);
    controller.error(cut);
  };
  const limited = new ReadableStream<Uint8Array>({
    start(controller) {
      if (Number(response.headers.get('content-length') ?? NaN) > limit) stop(controller);
    },
    async pull(controller) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (error) {
        end();
        throw error;
      }
      if (next.done) {
        end();
        controller.close();
        return;
      }
      total = counter ? counter.largestAfter(next.value) : total + next.value.byteLength;
      if (total > limit) return stop(controller);
      controller.enqueue(next.value);
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  return { response: new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers }), ended };
}

function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() === 'text/event-stream';
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Bytes of the SSE event being read. An event ends at an empty line; lines end in LF, CR or CRLF
 * (the SSE grammar), so a CR at a chunk's end may pair with an LF at the next one's start.
 */
class EventCounter {
  private event = 0;
  private lineBytes = 0;
  private afterCR = false;

  /** Counts `chunk`; returns the most any one event has taken within it (the one still open included). */
  largestAfter(chunk: Uint8Array): number {
    let largest = 0;
    for (const byte of chunk) {
      const crlf = this.afterCR && byte === LF;
      this.afterCR = byte === CR;
      if (crlf) continue;
      this.event += 1;
      if (byte !== LF && byte !== CR) {
        this.lineBytes += 1;
      } else if (this.lineBytes > 0) {
        this.lineBytes = 0;
      } else {
        largest = Math.max(largest, this.event);
        this.event = 0;
      }
    }
    return Math.max(largest, this.event);
  }
}
