import { APP_HOST, APP_SCHEME } from './app-protocol';

/**
 * Whether a URL belongs to our own renderer: used for IPC sender checks (DESIGN.md §2: only our
 * page talks to the host) and for navigation (the window never leaves our page).
 *
 * `expected` is the URL the window was given: `steward://app/index.html` in a build (the app
 * protocol serves only out/renderer, so any path on that host is ours), or the dev server's
 * `http://localhost:5173/` under electron-vite dev (same origin). A file:// URL is never ours: any
 * local file could be loaded that way. Query and fragment never matter (the app routes by hash).
 */
export function isTrustedSender(url: string, expected: string): boolean {
  const actual = parseUrl(url);
  const wanted = parseUrl(expected);
  if (!actual || !wanted) return false;
  if (actual.protocol !== wanted.protocol) return false;
  switch (wanted.protocol) {
    case `${APP_SCHEME}:`:
      // A non-special scheme has origin "null" in URL: compare the host itself.
      return wanted.host === APP_HOST && actual.host === APP_HOST;
    case 'http:':
    case 'https:':
      return actual.origin === wanted.origin;
    default:
      // file:, about:, data:, blob:, devtools:, other schemes: never our renderer.
      return false;
  }
}

function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}
