import type { StewardBridge } from '@shared/contracts/bridge';
import type { Transport, TransportSink } from './transport';

declare global {
  interface Window {
    steward?: StewardBridge;
  }
}

/** The desktop transport: request/response over IPC, pushes via the preload's event channel. */
export function createIpcTransport(bridge: StewardBridge): Transport {
  let unsubscribe: (() => void) | undefined;
  let sink: TransportSink | undefined;
  let stopped = false;

  const deliver = (frame: unknown) => {
    if (!stopped) sink?.frame(frame);
  };

  return {
    kind: 'ipc',
    start(s) {
      sink = s;
      unsubscribe = bridge.onEvents(deliver);
      // IPC has no handshake: the preload is there, so the host is.
      s.state('open');
    },
    send(frame) {
      if (stopped || !sink) throw new Error('the IPC transport is not running');
      bridge.request(frame).then(deliver, (err: unknown) => {
        // An IPC failure becomes this request's error response, so the caller sees it.
        deliver({
          kind: 'response',
          id: frame.id,
          ok: false,
          error: { code: 'host_error', message: err instanceof Error ? err.message : String(err) },
        });
      });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      unsubscribe?.();
      sink?.state('closed');
    },
  };
}
