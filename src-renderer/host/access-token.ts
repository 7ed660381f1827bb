import {
  LAUNCH_PATH,
  LaunchExchangeResponse,
  TOKEN_PATTERN,
  WS_PATH,
  WS_REFUSAL_PROTOCOL,
  launchCodeFromHash,
  tokenFromHash,
  webSocketProtocols,
} from '@shared/contracts/bridge';

/**
 * The browser-run host opens and prints a one-time link `http://127.0.0.1:PORT/#launch=<code>`,
 * which the page exchanges for the session token once; scripts get `#token=…` itself (scheme:
 * @shared/contracts/bridge). The token is the data folder's (it survives a restart of the host); it
 * is kept in sessionStorage so a reload, and a restart of the host, still connect, and it travels
 * only as a WebSocket subprotocol, never in a URL.
 */
const STORAGE_KEY = 'steward.host-token';

interface TokenStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** Stores the token of a `#token=…` fragment; true when the fragment held one (so it can be stripped). */
export function captureTokenFromFragment(hash: string, storage: TokenStorage): boolean {
  const token = tokenFromHash(hash);
  if (token === null) return false;
  if (TOKEN_PATTERN.test(token)) storage.setItem(STORAGE_KEY, token);
  return true;
}

/** Whether the fragment is an access link (`#token=` or `#launch=`) rather than a route: strip it at once. */
export function isAccessLink(hash: string): boolean {
  return tokenFromHash(hash) !== null || launchCodeFromHash(hash) !== null;
}

export type LaunchOutcome = { kind: 'none' } | { kind: 'stored' } | { kind: 'refused'; message: string };

type PageFetch = (input: string, init: RequestInit) => Promise<Response>;

/**
 * Exchanges the one-time code of a `#launch=…` fragment for the session token (POST to the page's
 * own origin) and stores it. Every failure ends in a message for the person, never a rejection.
 */
export async function redeemLaunchLink(hash: string, storage: TokenStorage, fetchFn: PageFetch): Promise<LaunchOutcome> {
  const code = launchCodeFromHash(hash);
  if (code === null) return { kind: 'none' };
  let body: unknown;
  try {
    const response = await fetchFn(LAUNCH_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
      cache: 'no-store',
      credentials: 'omit',
    });
    body = await response.json();
  } catch {
    return { kind: 'refused', message: 'Could not reach the Steward host to use this link. Is it still running? Start it again with `npm start`.' };
  }
  const parsed = LaunchExchangeResponse.safeParse(body);
  if (!parsed.success) return { kind: 'refused', message: 'The Steward host gave an unexpected answer to this link. Start it again with `npm start`.' };
  if (!parsed.data.ok) return { kind: 'refused', message: parsed.data.error.message };
  storage.setItem(STORAGE_KEY, parsed.data.token);
  return { kind: 'stored' };
}

export function readToken(storage: TokenStorage): string | null {
  return storage.getItem(STORAGE_KEY);
}

/** The WebSocket endpoint of the browser-run host that served this page. */
export function hostSocketUrl(location: { protocol: string; host: string }): string {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}${WS_PATH}`;
}

/**
 * Subprotocols that carry the token, and the one that asks the host to say when it refuses it (a
 * restart with a new token, another data folder's host on this port, no token at all): the page
 * then stops retrying and the banner says what to do.
 */
export function hostSocketProtocols(token: string | null): string[] {
  return [...(token ? webSocketProtocols(token) : []), WS_REFUSAL_PROTOCOL];
}
