import { TOKEN_PATTERN, WS_PATH, tokenFromHash, webSocketProtocols } from '@shared/contracts/bridge';

/**
 * The browser-run host prints `http://127.0.0.1:PORT/#token=…` (scheme: @shared/contracts/bridge).
 * The token is per launch; it is kept in sessionStorage so a reload after the fragment was
 * stripped still connects, and it travels only as a WebSocket subprotocol, never in a URL.
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

export function readToken(storage: TokenStorage): string | null {
  return storage.getItem(STORAGE_KEY);
}

/** The WebSocket endpoint of the browser-run host that served this page. */
export function hostSocketUrl(location: { protocol: string; host: string }): string {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}${WS_PATH}`;
}

/** Subprotocols that carry the token; none without a token (the host will refuse, the banner explains). */
export function hostSocketProtocols(token: string | null): string[] {
  return token ? webSocketProtocols(token) : [];
}
