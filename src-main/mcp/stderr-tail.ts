import type { Stream } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/**
 * Keeps the last lines a server wrote to stderr: the best explanation we have when it fails to start
 * or dies mid-run. Lines are also forwarded to the host log.
 */
export class StderrTail {
  private readonly lines: string[] = [];
  private partial = '';
  private ended = false;
  private readonly endWaiters: Array<() => void> = [];

  constructor(
    private readonly maxLines = 20,
    private readonly onLine?: (line: string) => void,
  ) {}

  attach(stream: Stream): void {
    // A decoder, so a UTF-8 character split across chunks is not mangled.
    const decoder = new StringDecoder('utf8');
    stream.on('data', (chunk: Buffer | string) => this.push(typeof chunk === 'string' ? chunk : decoder.write(chunk)));
    const end = (): void => {
      this.push(decoder.end());
      this.end();
    };
    stream.on('end', end);
    stream.on('close', end);
    // A broken stderr pipe must not become an unhandled 'error' event.
    stream.on('error', end);
  }

  push(chunk: string): void {
    if (this.ended || chunk === '') return;
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    for (const line of parts) this.add(line);
  }

  /** The last non-empty line, trimmed and shortened for a one-line message. */
  lastLine(): string | undefined {
    const tail = this.partial.trim() || this.lines.at(-1);
    if (!tail) return undefined;
    return tail.length > 300 ? `${tail.slice(0, 297)}...` : tail;
  }

  all(): string[] {
    return this.partial.trim() ? [...this.lines, this.partial.trim()] : [...this.lines];
  }

  /** Resolves once the stream has ended (all output read), or after `capMs`, whichever is first. */
  settled(capMs: number): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, capMs);
      timer.unref();
      this.endWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private add(raw: string): void {
    const line = raw.trimEnd();
    if (!line.trim()) return;
    this.lines.push(line);
    if (this.lines.length > this.maxLines) this.lines.shift();
    this.onLine?.(line);
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.partial.trim()) {
      this.add(this.partial);
      this.partial = '';
    }
    for (const waiter of this.endWaiters.splice(0)) waiter();
  }
}
