import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { APP_ENTRY_URL } from './app-protocol';
import { externalLinkToOpen, grantsPermission, rendererEntry } from './navigation-policy';

describe('links that may leave the app for the system browser', () => {
  it.each([
    ['https://modelcontextprotocol.io/docs', 'https://modelcontextprotocol.io/docs'],
    ['http://localhost:11434/', 'http://localhost:11434/'],
    ['HTTPS://Example.COM/a b', 'https://example.com/a%20b'],
  ])('opens the http(s) link %s as %s', (url, opened) => {
    expect(externalLinkToOpen(url)).toBe(opened);
  });

  it.each([
    'javascript:alert(1)',
    'file:///etc/passwd',
    'smb://server/share',
    'ms-settings:privacy',
    'data:text/html,<script>1</script>',
    'steward://app/index.html',
    'mailto:someone@example.com',
    'https://user:secret@example.com/',
    'https://user@example.com/',
    'not a url',
    '',
  ])('never opens %s', (url) => {
    expect(externalLinkToOpen(url)).toBeNull();
  });

  it('never opens a link whose scheme is not http or https (any scheme)', () => {
    fc.assert(
      fc.property(fc.webUrl(), fc.stringMatching(/^[a-z][a-z0-9+.-]{0,12}$/), (url, scheme) => {
        fc.pre(scheme !== 'http' && scheme !== 'https');
        expect(externalLinkToOpen(url.replace(/^https?/, scheme))).toBeNull();
      }),
    );
  });
});

describe('what the window loads', () => {
  it('a production build always loads the app protocol, whatever ELECTRON_RENDERER_URL says', () => {
    expect(rendererEntry({ dev: false, devUrl: 'http://localhost:5173' })).toBe(APP_ENTRY_URL);
    expect(rendererEntry({ dev: false, devUrl: undefined })).toBe(APP_ENTRY_URL);
  });

  it('a development build loads the dev server, but only on this machine', () => {
    expect(rendererEntry({ dev: true, devUrl: 'http://localhost:5173' })).toBe('http://localhost:5173/');
    expect(rendererEntry({ dev: true, devUrl: 'http://127.0.0.1:5173/' })).toBe('http://127.0.0.1:5173/');
    expect(rendererEntry({ dev: true, devUrl: 'https://evil.example/' })).toBe(APP_ENTRY_URL);
    expect(rendererEntry({ dev: true, devUrl: 'file:///tmp/index.html' })).toBe(APP_ENTRY_URL);
    expect(rendererEntry({ dev: true, devUrl: undefined })).toBe(APP_ENTRY_URL);
  });
});

describe('permissions', () => {
  it('no permission is ever granted, asked for or merely checked', () => {
    fc.assert(fc.property(fc.string(), (permission) => grantsPermission(permission) === false));
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fileSystem', 'hid', 'serial', 'usb']) {
      expect(grantsPermission(permission)).toBe(false);
    }
  });
});
