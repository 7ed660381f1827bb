import { lstatSync, type Stats } from 'node:fs';
import type { ChannelAddress } from '@shared/contracts/cli-channel';

/**
 * A command hands the host its channel token, its command line, its folder and its environment: only
 * to a channel the user's own host made (issue 27). The channel file and the socket must be what the
 * host makes — a plain file and a socket, not symlinks, owned by this user, readable and writable by
 * them alone (0600) — or the command refuses before it sends anything. A symlink planted in the data
 * folder (to a file naming another socket, or to another process's socket) is never followed.
 * Windows' named pipes and files are guarded by their ACLs: nothing to check there.
 */
/** `missing`: nothing there at all (no host made a channel): not a refusal. */
export type ChannelTrust = { ok: true } | { ok: false; reason: string; missing?: true };

export function trustChannelFile(file: string): ChannelTrust {
  return trustEntry(file, 'the channel file', (s) => s.isFile(), 'a plain file');
}

export function trustChannelSocket(address: ChannelAddress): ChannelTrust {
  if (process.platform === 'win32' || address.path.startsWith('\\\\.\\pipe\\')) return { ok: true };
  return trustEntry(address.path, 'the channel socket', (s) => s.isSocket(), 'a socket');
}

function trustEntry(path: string, what: string, kind: (s: Stats) => boolean, kindName: string): ChannelTrust {
  if (process.platform === 'win32') return { ok: true };
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return { ok: false, reason: `${what} ${path} cannot be read (${error instanceof Error ? error.message : String(error)})`, ...(missing ? { missing: true as const } : {}) };
  }
  if (stats.isSymbolicLink()) return { ok: false, reason: `${what} ${path} is a symbolic link, not ${kindName} the Steward host made` };
  if (!kind(stats)) return { ok: false, reason: `${what} ${path} is not ${kindName}` };
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && stats.uid !== uid) return { ok: false, reason: `${what} ${path} belongs to another account (uid ${stats.uid}), not to you` };
  if ((stats.mode & 0o077) !== 0) return { ok: false, reason: `${what} ${path} can be used by other accounts (mode 0${(stats.mode & 0o777).toString(8)}; the host makes it 0600)` };
  return { ok: true };
}

/** What a command says when it refuses a channel: what is wrong, and what to do. */
export function refusedChannelText(reason: string, file: string): string {
  return `steward: not handing this command to the Steward host: ${reason}. Nothing was sent. If no Steward app runs on this data folder, delete ${file} and try again; if one does, restart it.\n`;
}
