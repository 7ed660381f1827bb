import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contentTypeFor, lookupStatic } from './static-files';

describe('static file lookup', () => {
  let dir: string;
  let root: string;

  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'steward-static-')));
    root = path.join(dir, 'renderer');
    fs.mkdirSync(path.join(root, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(root, 'index.html'), 'index');
    fs.writeFileSync(path.join(root, 'assets', 'app-1.js'), 'app');
    fs.writeFileSync(path.join(root, '.env'), 'SECRET=1');
    fs.writeFileSync(path.join(dir, 'outside.txt'), 'outside');
    fs.symlinkSync(path.join(dir, 'outside.txt'), path.join(root, 'assets', 'link.txt'));
    fs.symlinkSync(dir, path.join(root, 'up'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('maps / to index.html, never cached', () => {
    expect(lookupStatic(root, '/')).toEqual({ kind: 'file', file: path.join(root, 'index.html'), contentType: 'text/html; charset=utf-8', cacheControl: 'no-store' });
    expect(lookupStatic(root, '/index.html')).toMatchObject({ kind: 'file', cacheControl: 'no-store' });
  });

  it('caches hashed assets for good', () => {
    expect(lookupStatic(root, '/assets/app-1.js')).toMatchObject({ kind: 'file', cacheControl: 'public, max-age=31536000, immutable' });
  });

  it('does not follow a symlink out of the renderer folder', () => {
    expect(lookupStatic(root, '/assets/link.txt')).toEqual({ kind: 'not_found' });
    expect(lookupStatic(root, '/up/outside.txt')).toEqual({ kind: 'not_found' });
  });

  it('hides dotfiles and refuses dot-segments, backslashes, NUL and bad escapes', () => {
    expect(lookupStatic(root, '/.env')).toEqual({ kind: 'not_found' });
    expect(lookupStatic(root, '/%2e%2e/outside.txt')).toEqual({ kind: 'not_found' });
    expect(lookupStatic(root, '/..%5coutside.txt')).toEqual({ kind: 'bad_request' });
    expect(lookupStatic(root, '/index.html%00')).toEqual({ kind: 'bad_request' });
    expect(lookupStatic(root, '/%E0%A4%A')).toEqual({ kind: 'bad_request' });
    expect(lookupStatic(root, '/assets')).toEqual({ kind: 'not_found' });
  });

  it('names content types by extension, unknown ones as octet-stream', () => {
    expect(contentTypeFor('a.JS')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeFor('a.woff2')).toBe('font/woff2');
    expect(contentTypeFor('a.svg')).toBe('image/svg+xml');
    expect(contentTypeFor('a.unknown')).toBe('application/octet-stream');
  });
});
