import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { TOKEN_PATTERN, WS_PROTOCOL, WS_TOKEN_PROTOCOL_PREFIX } from '@shared/contracts/bridge';
import { contentSecurityPolicy as sharedPolicy } from '../content-security-policy';

/**
 * The browser-run server's gatekeeping, as pure functions. Any web page the user visits can try
 * to talk to 127.0.0.1; these checks are what keeps it out:
 *   - Host header: only our own host names, so a DNS-rebinding page (evil.example → 127.0.0.1) is refused;
 *   - Origin: only our own origin may open the WebSocket (browsers always send it on upgrades);
 *   - token: a per-launch secret the page got from the URL fragment, offered as a WebSocket subprotocol.
 */

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function isValidToken(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}

/** The two names the server answers to (it binds 127.0.0.1 only). */
export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

export function allowedOrigins(port: number): string[] {
  return allowedHosts(port).map((host) => `http://${host}`);
}

export function isAllowedHost(hostHeader: string | undefined, port: number): boolean {
  return hostHeader !== undefined && allowedHosts(port).includes(hostHeader.toLowerCase());
}

/** Exact match only; a missing Origin is refused too (fail closed: every browser sends one on upgrades). */
export function isAllowedOrigin(origin: string | undefined, port: number): boolean {
  return origin !== undefined && allowedOrigins(port).includes(origin.toLowerCase());
}

/** Parses `Sec-WebSocket-Protocol` ("a, b, c"). */
export function offeredProtocols(header: string | string[] | undefined): string[] {
  const joined = Array.isArray(header) ? header.join(',') : (header ?? '');
  return joined
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** The token offered as `steward.token.<token>` alongside `steward.v1`, or null when the offer is incomplete. */
export function tokenFromProtocols(protocols: readonly string[]): string | null {
  if (!protocols.includes(WS_PROTOCOL)) return null;
  const tokens = protocols.filter((item) => item.startsWith(WS_TOKEN_PROTOCOL_PREFIX));
  if (tokens.length !== 1) return null;
  return tokens[0]?.slice(WS_TOKEN_PROTOCOL_PREFIX.length) ?? null;
}

/** Constant-time comparison; hashing first hides the length as well. */
export function tokensEqual(offered: string, expected: string): boolean {
  const a = createHash('sha256').update(offered).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The shared page policy (../content-security-policy.ts), with this server's own WebSocket. */
export function contentSecurityPolicy(port: number): string {
  return sharedPolicy(allowedHosts(port).map((host) => `ws://${host}`));
}
