import type { Socket } from 'node:net';

/** A frame larger than this is refused (and the connection closed): no peer can make us buffer without end. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/**
 * JSON lines over a socket: each complete line is parsed and handed on; a line that does not parse,
 * or one longer than MAX_FRAME_BYTES, is reported once through `onBad` and reading stops.
 */
export function readJsonLines(socket: Socket, onFrame: (value: unknown) => void, onBad: (problem: string) => void): void {
  let buffered = '';
  let stopped = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    if (stopped) return;
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim().length > 0) {
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch {
          stopped = true;
          onBad('a frame that is not JSON');
          return;
        }
        onFrame(value);
        if (stopped) return;
      }
      newline = buffered.indexOf('\n');
    }
    if (Buffer.byteLength(buffered) > MAX_FRAME_BYTES) {
      stopped = true;
      onBad(`a frame over ${MAX_FRAME_BYTES} bytes`);
    }
  });
}

/** One frame as one JSON line; false once the socket is gone (nothing to tell any more). */
export function writeJsonLine(socket: Socket, value: unknown): boolean {
  if (socket.destroyed || !socket.writable) return false;
  socket.write(`${JSON.stringify(value)}\n`);
  return true;
}

/** Text in pieces a frame can carry (a 10 MB answer is many frames, never one refused frame). */
export function textPieces(text: string, size = 512 * 1024): string[] {
  if (text.length <= size) return [text];
  const pieces: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(at + size, text.length);
    // Never between the two halves of a surrogate pair: each piece is printed on its own.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces;
}
