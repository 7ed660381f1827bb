import fs from 'node:fs';
import path from 'node:path';

/** Serves the built renderer folder, and nothing outside it. */

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

export function contentTypeFor(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

export type StaticLookup =
  | { kind: 'file'; file: string; contentType: string; cacheControl: string }
  | { kind: 'bad_request' }
  | { kind: 'not_found' };

/**
 * Maps a request path to a file inside `root` (a realpath). Decodes once, refuses NUL, backslashes
 * and dot-segments/dotfiles, and re-checks the real path so a symlink cannot lead outside.
 */
export function lookupStatic(root: string, requestPath: string): StaticLookup {
  let decoded: string;
  try {
    decoded = decodeURIComponent(requestPath);
  } catch {
    return { kind: 'bad_request' };
  }
  if (!decoded.startsWith('/') || decoded.includes('\0') || decoded.includes('\\')) return { kind: 'bad_request' };
  const segments = decoded.split('/').filter((segment) => segment.length > 0);
  if (segments.some((segment) => segment.startsWith('.'))) return { kind: 'not_found' };
  const relative = segments.length === 0 ? 'index.html' : segments.join('/');
  const candidate = path.resolve(root, relative);
  if (!isInside(root, candidate)) return { kind: 'not_found' };
  let real: string;
  try {
    real = fs.realpathSync(candidate);
    if (!isInside(root, real) || !fs.statSync(real).isFile()) return { kind: 'not_found' };
  } catch {
    return { kind: 'not_found' };
  }
  const isIndex = path.relative(root, real) === 'index.html';
  // index.html names the hashed bundles of this build: never cache it. Hashed assets never change.
  const cacheControl = isIndex ? 'no-store' : segments[0] === 'assets' ? 'public, max-age=31536000, immutable' : 'no-cache';
  return { kind: 'file', file: real, contentType: contentTypeFor(real), cacheControl };
}

function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative.length > 0 && !relative.startsWith('..') && !path.isAbsolute(relative);
}
