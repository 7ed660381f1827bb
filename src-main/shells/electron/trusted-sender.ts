/**
 * Whether a URL belongs to our own renderer: used for IPC sender checks (DESIGN.md §2: only our
 * page talks to the host) and for navigation (the window never leaves our page).
 *
 * `expected` is the URL the window was given: `file:///…/out/renderer/index.html` in a build, or
 * the dev server's `http://localhost:5173/` under electron-vite dev. A file URL must be that exact
 * file (any other local file is someone else's content); an http(s) URL must be the same origin.
 * Query and fragment never matter (the app routes by hash).
 */
export function isTrustedSender(url: string, expected: string): boolean {
  const actual = parseUrl(url);
  const wanted = parseUrl(expected);
  if (!actual || !wanted) return false;
  if (actual.protocol !== wanted.protocol) return false;
  switch (wanted.protocol) {
    case 'file:':
      return actual.host === wanted.host && decodedPath(actual) === decodedPath(wanted);
    case 'http:':
    case 'https:':
      return actual.origin === wanted.origin;
    default:
      // about:, data:, blob:, devtools:, custom schemes: never our renderer.
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

/** `%20` and ` ` name the same file; a path that does not decode is not ours. */
function decodedPath(url: URL): string | null {
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
}
