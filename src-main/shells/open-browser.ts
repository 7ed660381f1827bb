import { spawn } from 'node:child_process';
import { tokenFromHash } from '@shared/contracts/bridge';

/** Whether to open a browser for the user: not in CI, and on Linux/BSD only with a display. */
export function shouldOpenBrowser(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): boolean {
  if (env.CI) return false;
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/**
 * The platform's "open this URL" command. `start` is a cmd built-in; its first quoted argument is a
 * window title. Null for a URL that carries the session token: every local user can read a command
 * line (/proc/PID/cmdline, ps), so only a one-time launch link may go there. Null for anything but
 * an http(s) link.
 */
export function openCommand(url: string, platform: NodeJS.Platform): { command: string; args: string[] } | null {
  // Web links only: a sign-in page's address comes from a remote server's metadata, and an opener
  // hands `file:` or an app's own scheme to whatever handles it.
  if (!/^https?:\/\//i.test(url)) return null;
  const hash = url.indexOf('#');
  if (hash >= 0 && tokenFromHash(url.slice(hash)) !== null) return null;
  if (platform === 'darwin') return { command: 'open', args: [url] };
  // Passed verbatim (see openBrowser): Node's own quoting would escape the quotes in a way cmd does not read.
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', `"${url}"`] };
  return { command: 'xdg-open', args: [url] };
}

/** Best effort and fire-and-forget: the URL is printed anyway, so any failure here is ignored. */
export function openBrowser(url: string, platform: NodeJS.Platform = process.platform): void {
  const opener = openCommand(url, platform);
  if (!opener) return;
  const { command, args } = opener;
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore', windowsHide: true, windowsVerbatimArguments: platform === 'win32' });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener installed: the printed URL is the fallback.
  }
}

/**
 * How links open for this person: the command in `$BROWSER` when they set one (the first of a
 * `:`-separated list; `%s` stands for the link, else it goes last; run without a shell), else the
 * platform's opener where a browser can show (shouldOpenBrowser); undefined: the link is printed
 * only. A link that carries the session token is never put on a command line (openCommand).
 */
export function browserFor(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): ((url: string) => void) | undefined {
  const chosen = env.BROWSER?.split(':')[0]?.trim();
  if (chosen) {
    const [command, ...args] = chosen.split(/\s+/);
    if (command) {
      return (url) => {
        if (openCommand(url, platform) === null) return;
        const withUrl = args.some((a) => a.includes('%s')) ? args.map((a) => a.replaceAll('%s', url)) : [...args, url];
        try {
          const child = spawn(command, withUrl, { detached: true, stdio: 'ignore', windowsHide: true });
          child.on('error', () => undefined);
          child.unref();
        } catch {
          // The printed link is the fallback.
        }
      };
    }
  }
  return shouldOpenBrowser(env, platform) ? (url) => openBrowser(url, platform) : undefined;
}
