import type { ServerResponse } from 'node:http';

/** What a model-boundary double wrote for one answer: lets a test prove a client stopped reading. */
export interface WrittenResponse {
  path: string;
  status: number;
  /** The size of the whole body the double meant to send. */
  body_bytes: number;
  /** Bytes the socket accepted before the answer ended or the client went away. */
  bytes_written: number;
  /** The whole body was written. */
  finished: boolean;
  /** The client closed the connection before the whole body was written. */
  closed_early: boolean;
}

const CHUNK = 64 * 1024;

/**
 * Writes a body in 64 KiB chunks, waiting for the socket to drain (no Content-Length: chunked, as a
 * streaming model server sends), so a client that stops reading stops the writing, and the log says
 * how far it got. Resolves when the body is written or the connection is gone.
 */
export function writeBody(
  res: ServerResponse,
  answer: { path: string; status: number; headers: Record<string, string>; body: string },
  log: WrittenResponse[],
): Promise<void> {
  const bytes = Buffer.from(answer.body, 'utf8');
  const entry: WrittenResponse = { path: answer.path, status: answer.status, body_bytes: bytes.length, bytes_written: 0, finished: false, closed_early: false };
  log.push(entry);
  res.writeHead(answer.status, answer.headers);
  return new Promise((resolve) => {
    let offset = 0;
    const gone = (): void => {
      if (!entry.finished) entry.closed_early = true;
      resolve();
    };
    res.once('close', gone);
    const pump = (): void => {
      while (offset < bytes.length) {
        if (res.destroyed) return;
        const chunk = bytes.subarray(offset, offset + CHUNK);
        offset += chunk.length;
        const more = res.write(chunk, () => {
          entry.bytes_written += chunk.length;
        });
        if (!more) {
          res.once('drain', pump);
          return;
        }
      }
      res.end(() => {
        entry.finished = true;
        res.off('close', gone);
        resolve();
      });
    };
    pump();
  });
}

/** Ends the connection with a TCP reset, as a crashing server or a proxy dropping it does. */
export function resetConnection(res: ServerResponse): void {
  const socket = res.socket as (NonNullable<ServerResponse['socket']> & { resetAndDestroy?: () => void }) | null;
  if (socket?.resetAndDestroy) socket.resetAndDestroy();
  else socket?.destroy();
}
