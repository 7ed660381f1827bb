import { APP_ENTRY_URL } from './app-protocol';

/**
 * The desktop shell's navigation, window and permission decisions, as pure functions (main.ts
 * wires them to Electron; the Electron binary does not run in the tests).
 */

/**
 * The URL to hand to shell.openExternal for a link the page asked to open in a new window, or
 * null. Only http(s), parsed (not prefix-matched), with a host and without userinfo: another
 * scheme could start a local program (file:, smb:, ms-settings:, custom handlers), and
 * `https://trusted@evil` misleads about where it goes.
 */
export function externalLinkToOpen(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  if (parsed.username !== '' || parsed.password !== '' || parsed.hostname === '') return null;
  return parsed.href;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * What the window loads. `dev` is fixed at build time (electron-vite dev vs build), so a built app
 * ignores ELECTRON_RENDERER_URL entirely, and even a dev build only follows it to this machine.
 */
export function rendererEntry(options: { dev: boolean; devUrl: string | undefined }): string {
  if (!options.dev || !options.devUrl) return APP_ENTRY_URL;
  try {
    const parsed = new URL(options.devUrl);
    if ((parsed.protocol === 'http:' || parsed.protocol === 'https:') && LOOPBACK.has(parsed.hostname)) return parsed.href;
  } catch {
    // not a URL: the built renderer
  }
  return APP_ENTRY_URL;
}

/**
 * The app needs no device, notification, clipboard or other web permission: every request and
 * every check is answered no (setPermissionRequestHandler and setPermissionCheckHandler).
 */
export function grantsPermission(_permission: string): boolean {
  return false;
}
