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

  it('uses the platform opener', () => {
    const url = 'http://127.0.0.1:1/#token=abc';
    expect(openCommand(url, 'linux')).toEqual({ command: 'xdg-open', args: [url] });
    expect(openCommand(url, 'darwin')).toEqual({ command: 'open', args: [url] });
    expect(openCommand(url, 'win32')).toEqual({ command: 'cmd', args: ['/c', 'start', '""', `"${url}"`] });
  });
});
