import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from '../content-security-policy';
import { APP_ENTRY_URL, APP_SCHEME, APP_SCHEME_PRIVILEGES, appResponseHeaders, resolveAppRequest } from './app-protocol';

let dir: string;
let root: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-app-protocol-'));
  root = path.join(dir, 'renderer');
  fs.mkdirSync(path.join(root, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html>');
  fs.writeFileSync(path.join(root, 'assets', 'index-abc.js'), 'x');
  fs.writeFileSync(path.join(dir, 'secret.txt'), 'TOP SECRET');
  root = fs.realpathSync(root);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the steward:// app protocol', () => {
  it('is a standard, secure scheme and the window opens its index page', () => {
    expect(APP_SCHEME).toBe('steward');
    expect(APP_SCHEME_PRIVILEGES).toMatchObject({ standard: true, secure: true });
    expect(APP_ENTRY_URL).toBe('steward://app/index.html');
  });

  it('serves the built renderer: index at / and /index.html, assets with their content types', () => {
    expect(resolveAppRequest(root, 'steward://app/')).toMatchObject({ kind: 'file', file: path.join(root, 'index.html') });
    expect(resolveAppRequest(root, 'steward://app/index.html#/runs')).toMatchObject({ kind: 'file', contentType: 'text/html; charset=utf-8' });
    expect(resolveAppRequest(root, 'steward://app/assets/index-abc.js')).toMatchObject({ kind: 'file', contentType: 'text/javascript; charset=utf-8' });
  });

  it.each([
    'steward://app/../secret.txt',
    'steward://app/%2e%2e/secret.txt',
    'steward://app/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
    'steward://app/..%5csecret.txt',
    `steward://app/${'%2e%2e/'.repeat(8)}etc/passwd`,
    'steward://app/.env',
  ])('never serves a file outside the renderer folder: %s', (url) => {
    expect(resolveAppRequest(root, url).kind).not.toBe('file');
  });

  it('serves nothing for another host of the scheme, another scheme, or an unparsable URL', () => {
    expect(resolveAppRequest(root, 'steward://evil/index.html').kind).toBe('not_found');
    expect(resolveAppRequest(root, 'file:///index.html').kind).toBe('not_found');
    expect(resolveAppRequest(root, 'not a url').kind).toBe('bad_request');
  });

  it('every response carries the strict content security policy and nosniff', () => {
    const found = resolveAppRequest(root, 'steward://app/');
    if (found.kind !== 'file') throw new Error('expected the index');
    expect(appResponseHeaders(found)).toMatchObject({
      'Content-Security-Policy': contentSecurityPolicy([]),
      'X-Content-Type-Options': 'nosniff',
      'Content-Type': 'text/html; charset=utf-8',
    });
    expect(appResponseHeaders({ kind: 'not_found' })['Content-Security-Policy']).toBe(contentSecurityPolicy([]));
  });
});
