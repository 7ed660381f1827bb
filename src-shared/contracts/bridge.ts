import type { ClientFrame } from './host-api';

/**
 * How the renderer reaches the host, for both shells. Pure TS: the renderer imports it, the
 * Electron preload implements `StewardBridge`, the browser-run server implements the WebSocket side.
 */

/**
 * What the Electron preload exposes as the `steward` global of the page. Results are `unknown` on purpose:
 * the renderer validates every frame with `ServerFrame` on arrival.
 */
export interface StewardBridge {
  /** Sends one request frame; resolves with the host's response frame. */
  request(frame: ClientFrame): Promise<unknown>;
  /** Receives pushed event frames; returns the unsubscribe function. */
  onEvents(cb: (frame: unknown) => void): () => void;
}

/** The name of the global under which the preload exposes the bridge (`steward`). */
export const BRIDGE_GLOBAL = 'steward';

/**
 * Browser-run WebSocket. The page URL carries the per-launch token in its fragment
 * (`http://127.0.0.1:PORT/#token=…`; a fragment is never sent to a server or logged). The page
 * opens `ws://<location.host>/api` offering two subprotocols, in this order:
 * `WS_PROTOCOL` and `WS_TOKEN_PROTOCOL_PREFIX + token`. The server answers with `WS_PROTOCOL`.
 * The token is not accepted anywhere else (no query parameter, no cookie).
 */
export const WS_PATH = '/api';
export const WS_PROTOCOL = 'steward.v1';
export const WS_TOKEN_PROTOCOL_PREFIX = 'steward.token.';

/** The `protocols` argument for `new WebSocket(url, protocols)`. */
export function webSocketProtocols(token: string): string[] {
  return [WS_PROTOCOL, `${WS_TOKEN_PROTOCOL_PREFIX}${token}`];
}

/** Reads the token from `location.hash` (`#token=…`, possibly among other `&`-separated pairs). */
export function tokenFromHash(hash: string): string | null {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  for (const pair of body.split('&')) {
    const [key, value] = pair.split('=', 2);
    if (key === 'token' && value) return value;
  }
  return null;
}

/** A per-launch token: base64url, so it is a valid subprotocol token character string. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;
