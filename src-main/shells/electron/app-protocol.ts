import { contentSecurityPolicy } from '../content-security-policy';
import { lookupStatic, type StaticLookup } from '../browser/static-files';

/**
 * The desktop window loads the renderer from `steward://app/…`, not `file://`: a file URL would
 * give the page the reach of the whole file system (any local file is "same origin" to it), and
 * file:// responses cannot carry a Content-Security-Policy header. The handler serves only files
 * inside out/renderer, with the same lookup as the browser shell (static-files.ts: no dot-segments,
 * no dotfiles, symlinks re-checked).
 */
export const APP_SCHEME = 'steward';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/**
 * Registered before `ready` (protocol.registerSchemesAsPrivileged). standard: real origin and
 * relative URLs; secure: treated like https (no mixed-content downgrades); supportFetchAPI and
 * corsEnabled: Vite's `<script type="module" crossorigin>` bundles load from it. No bypassCSP.
 */
export const APP_SCHEME_PRIVILEGES = { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true } as const;

/** Maps a `steward://app/…` request to a file in `root` (a realpath); anything else is not found. */
export function resolveAppRequest(root: string, url: string): StaticLookup {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { kind: 'bad_request' };
  }
  // A non-special scheme: URL gives origin "null", so compare scheme and host themselves.
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST) return { kind: 'not_found' };
  return lookupStatic(root, parsed.pathname);
}

/** Headers of every app-protocol response, found or not. */
export function appResponseHeaders(found: StaticLookup): Record<string, string> {
  const common = { 'Content-Security-Policy': contentSecurityPolicy([]), 'X-Content-Type-Options': 'nosniff' };
  if (found.kind !== 'file') return { ...common, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' };
  return { ...common, 'Content-Type': found.contentType, 'Cache-Control': found.cacheControl };
}
