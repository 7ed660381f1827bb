import { hostSocketProtocols, hostSocketUrl, readToken } from './access-token';
import { createIpcTransport } from './ipc-transport';
import { createWebSocketTransport } from './websocket-transport';
import type { Transport } from './transport';

/** Electron's preload exposes `window.steward`; a plain browser talks to the browser-run host. */
export function pickTransport(win: Window): Transport {
  if (win.steward) return createIpcTransport(win.steward);
  return createWebSocketTransport({
    url: hostSocketUrl(win.location),
    protocols: () => hostSocketProtocols(readToken(win.sessionStorage)),
  });
}
