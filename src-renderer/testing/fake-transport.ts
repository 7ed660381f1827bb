import type { ClientFrame } from '@shared/contracts/host-api';
import type { ConnectionState, Transport, TransportSink } from '../host/transport';

/**
 * Transport double for tests: records every frame the client sends and lets the test push frames
 * and connection states as if they came from the host. With `respond`, it answers requests itself
 * (asynchronously, like a network would); returning undefined leaves a request unanswered.
 */
export class FakeTransport implements Transport {
  readonly kind = 'websocket' as const;
  readonly sent: ClientFrame[] = [];
  stopped = false;
  private sink: TransportSink | undefined;

  constructor(private readonly respond?: (frame: ClientFrame) => unknown) {}

  start(sink: TransportSink): void {
    this.sink = sink;
  }
  send(frame: ClientFrame): void {
    if (this.stopped) throw new Error('stopped');
    this.sent.push(frame);
    const result = this.respond?.(frame);
    if (result !== undefined) queueMicrotask(() => this.push({ kind: 'response', id: frame.id, ok: true, result }));
  }
  stop(): void {
    this.stopped = true;
  }
  push(frame: unknown): void {
    this.sink?.frame(frame);
  }
  setState(state: ConnectionState): void {
    this.sink?.state(state);
  }
  lastRequest(): ClientFrame {
    const frame = this.sent.at(-1);
    if (!frame) throw new Error('nothing was sent');
    return frame;
  }
  methods(): string[] {
    return this.sent.map((f) => f.method);
  }
}
