import { describe, expect, it } from 'vitest';
import { WS_PROTOCOL, WS_REFUSAL_PROTOCOL, WS_TOKEN_PROTOCOL_PREFIX } from '@shared/contracts/bridge';
import { captureTokenFromFragment, hostSocketProtocols, hostSocketUrl, isAccessLink, readToken } from './access-token';

function memoryStorage() {
  const items = new Map<string, string>();
  return { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v) };
}

describe('access token', () => {
  it('keeps the fragment token so a reload without the fragment still connects', () => {
    const storage = memoryStorage();
    expect(captureTokenFromFragment('#token=abcdefghijklmnop_-12', storage)).toBe(true);
    expect(readToken(storage)).toBe('abcdefghijklmnop_-12');
    // The reload: the fragment is now a route, the token is still there.
    expect(captureTokenFromFragment('#/runs', storage)).toBe(false);
    expect(readToken(storage)).toBe('abcdefghijklmnop_-12');
  });

  it('never stores a token that is not a session token, but still strips the fragment', () => {
    const storage = memoryStorage();
    expect(captureTokenFromFragment('#token=short', storage)).toBe(true);
    expect(readToken(storage)).toBeNull();
  });

  it('offers the token as a subprotocol, and always asks to be told when it is refused (with no token too)', () => {
    expect(hostSocketProtocols('abcdefghijklmnop_-12')).toEqual([WS_PROTOCOL, `${WS_TOKEN_PROTOCOL_PREFIX}abcdefghijklmnop_-12`, WS_REFUSAL_PROTOCOL]);
    expect(hostSocketProtocols(null)).toEqual([WS_REFUSAL_PROTOCOL]);
  });

  it('treats a one-time launch link as an access link to strip from the address bar, and a route as a route', () => {
    expect(isAccessLink('#launch=abcdefghijklmnop_-12')).toBe(true);
    expect(isAccessLink('#token=abcdefghijklmnop_-12')).toBe(true);
    expect(isAccessLink('#/runs/abc')).toBe(false);
    // A launch code is not a token: it is never stored as one.
    const storage = memoryStorage();
    expect(captureTokenFromFragment('#launch=abcdefghijklmnop_-12', storage)).toBe(false);
    expect(readToken(storage)).toBeNull();
  });

  it('points the socket at /api on the page’s own host, with no token in the URL', () => {
    expect(hostSocketUrl({ protocol: 'http:', host: '127.0.0.1:4321' })).toBe('ws://127.0.0.1:4321/api');
    expect(hostSocketUrl({ protocol: 'https:', host: 'localhost:9' })).toBe('wss://localhost:9/api');
  });
});
