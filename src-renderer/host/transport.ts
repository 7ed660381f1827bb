import type { ClientFrame } from '@shared/contracts/host-api';

/**
 * The connection as the app sees it; `closed` only after the client was closed on purpose;
 * `refused`: the host answers but refuses this page's access token (it stops trying until a new
 * token is stored, see `Transport.reconnect`).
 */
export type ConnectionState = 'connecting' | 'open' | 'refused' | 'closed';

/** Where a transport delivers what it hears. Frames are untrusted: the client validates them. */
export interface TransportSink {
  frame(frame: unknown): void;
  state(state: ConnectionState): void;
}

/**
 * One way of carrying host frames (Electron IPC or the browser-run WebSocket). A transport only
 * moves frames and reports its state; correlation and validation live in the host client.
 */
export interface Transport {
  readonly kind: 'websocket' | 'ipc';
  start(sink: TransportSink): void;
  /** Throws when the frame cannot be sent now (not connected). */
  send(frame: ClientFrame): void;
  stop(): void;
  /** Try at once again, e.g. after a refusal once a new token was stored (a transport with no refusals has none). */
  reconnect?(): void;
}
