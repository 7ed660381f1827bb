import { spawn } from 'node:child_process';

/** Whether to open a browser for the user: not in CI, and on Linux/BSD only with a display. */
export function shouldOpenBrowser(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): boolean {
  if (env.CI) return false;
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/** The platform's "open this URL" command. `start` is a cmd built-in; its first quoted argument is a window title. */
export function openCommand(url: string, platform: NodeJS.Platform): { command: string; args: string[] } {
  if (platform === 'darwin') return { command: 'open', args: [url] };
  // Passed verbatim (see openBrowser): Node's own quoting would escape the quotes in a way cmd does not read.
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', `"${url}"`] };
  return { command: 'xdg-open', args: [url] };
}

/** Best effort and fire-and-forget: the URL is printed anyway, so any failure here is ignored. */
export function openBrowser(url: string, platform: NodeJS.Platform = process.platform): void {
  const { command, args } = openCommand(url, platform);
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore', windowsHide: true, windowsVerbatimArguments: platform === 'win32' });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener installed: the printed URL is the fallback.
  }
}
