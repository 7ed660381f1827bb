import { z } from 'zod';
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

/** A session token (and a launch code): base64url, so it is a valid subprotocol token character string. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * Browser-run WebSocket. The page gets the session token (one per data folder, kept across restarts so
 * an open page reconnects by itself) from a one-time launch link (below), or
 * from a `#token=…` fragment given to scripts (`--print-url-json`; a fragment is never sent to a
 * server or logged). The page opens `ws://<location.host>/api` offering two subprotocols, in this
 * order: `WS_PROTOCOL` and `WS_TOKEN_PROTOCOL_PREFIX + token`. The server answers with `WS_PROTOCOL`.
 * The token is not accepted anywhere else (no query parameter, no cookie, never a launch code).
 */
export const WS_PATH = '/api';
export const WS_PROTOCOL = 'steward.v1';
export const WS_TOKEN_PROTOCOL_PREFIX = 'steward.token.';

/** The `protocols` argument for `new WebSocket(url, protocols)`. */
export function webSocketProtocols(token: string): string[] {
  return [WS_PROTOCOL, `${WS_TOKEN_PROTOCOL_PREFIX}${token}`];
}

/**
 * A page offers this subprotocol too, to be *told* when its token is refused: a browser never shows
 * a page the status of a refused upgrade, so to the page a refusal (401) looks like a host that is
 * down, and it would retry for ever. With this offered (and Host, Origin and path right: only the
 * app's own page gets this far), the server completes the handshake choosing this protocol instead
 * of `WS_PROTOCOL`, attaches nothing and closes with `TOKEN_REFUSED_CLOSE`. A client that does not
 * offer it gets the plain 401.
 */
export const WS_REFUSAL_PROTOCOL = 'steward.refusal.v1';
/** The close code of a refused token (4000–4999: an application's own). */
export const TOKEN_REFUSED_CLOSE = 4401;

/** Reads the token from `location.hash` (`#token=…`, possibly among other `&`-separated pairs). */
export function tokenFromHash(hash: string): string | null {
  return fragmentValue(hash, 'token');
}

/** Reads the one-time launch code from `location.hash` (`#launch=…`). */
export function launchCodeFromHash(hash: string): string | null {
  return fragmentValue(hash, 'launch');
}

function fragmentValue(hash: string, wanted: string): string | null {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  for (const pair of body.split('&')) {
    const [key, value] = pair.split('=', 2);
    if (key === wanted && value) return value;
  }
  return null;
}

/**
 * One-time launch link. The link the host opens in a browser (and prints for the user) carries a
 * one-time code instead of the token, `http://127.0.0.1:PORT/#launch=<code>`: a command line is
 * readable by every local user (/proc/PID/cmdline), so the token itself never goes on one. The page
 * POSTs `LaunchExchangeRequest` as JSON to `LAUNCH_PATH` on its own origin and gets the session
 * token back once; the code is spent by the first exchange and expires soon after it was issued.
 */
export const LAUNCH_PATH = '/launch';

export const LaunchExchangeRequest = z.object({ code: z.string().regex(TOKEN_PATTERN) }).strict();
export type LaunchExchangeRequest = z.infer<typeof LaunchExchangeRequest>;

export const LaunchRefusalCode = z.enum(['launch_used', 'launch_expired', 'launch_unknown', 'bad_request', 'forbidden']);
export type LaunchRefusalCode = z.infer<typeof LaunchRefusalCode>;

export const LaunchExchangeResponse = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), token: z.string().regex(TOKEN_PATTERN) }).strict(),
  z.object({ ok: z.literal(false), error: z.object({ code: LaunchRefusalCode, message: z.string() }).strict() }).strict(),
]);
export type LaunchExchangeResponse = z.infer<typeof LaunchExchangeResponse>;
