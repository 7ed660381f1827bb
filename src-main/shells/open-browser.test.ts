import { describe, expect, it } from 'vitest';
import { openCommand, shouldOpenBrowser } from './open-browser';

describe('opening a browser', () => {
  it.each([
    [{ CI: 'true', DISPLAY: ':0' }, 'linux', false],
    [{}, 'linux', false],
    [{ DISPLAY: ':0' }, 'linux', true],
    [{ WAYLAND_DISPLAY: 'wayland-0' }, 'linux', true],
    [{}, 'darwin', true],
    [{}, 'win32', true],
    [{ CI: '1' }, 'darwin', false],
  ] as const)('env %j on %s → %s', (env, platform, expected) => {
    expect(shouldOpenBrowser({ ...env }, platform)).toBe(expected);
  });

  it('never builds an opener command that carries a session token (command lines are public to local users)', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(openCommand('http://127.0.0.1:1/#token=abcdefghijklmnop', platform)).toBeNull();
      expect(openCommand('http://127.0.0.1:1/#/runs&token=abcdefghijklmnop', platform)).toBeNull();
    }
  });

  it('opens web links only: a sign-in address a remote server names as file: or an app scheme opens nothing', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      for (const url of ['file:///etc/passwd', 'ms-settings:privacy', 'smb://evil.example.com/share', 'javascript:alert(1)', ' https://x.example.com/']) expect(openCommand(url, platform)).toBeNull();
      expect(openCommand('https://login.example.com/authorize?scope=a%20b', platform)).not.toBeNull();
    }
  });

  it('uses the platform opener', () => {
    const url = 'http://127.0.0.1:1/#launch=abc';
    expect(openCommand(url, 'linux')).toEqual({ command: 'xdg-open', args: [url] });
    expect(openCommand(url, 'darwin')).toEqual({ command: 'open', args: [url] });
    expect(openCommand(url, 'win32')).toEqual({ command: 'cmd', args: ['/c', 'start', '""', `"${url}"`] });
  });
});
