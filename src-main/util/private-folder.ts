import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The data folder holds the traces of privacy-sensitive runs: it is the user's alone (issue 27). Made
 * 0700 when created; an existing one that others may read (an older Steward made it 0755, its history
 * 0644) is made private at the first open, its own files too, and the log says so once: the next open
 * finds nothing to change. A folder owned by another account is left as it is (never chmod another's).
 * Windows folders are private to the user by their ACLs: nothing to do there.
 */
export function keepDataFolderPrivate(dataDir: string, log: (line: string) => void = () => undefined): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return;
  const folder = statSync(dataDir);
  if (folder.uid !== process.getuid()) return;
  const changed: string[] = [];
  if ((folder.mode & 0o077) !== 0) {
    chmodSync(dataDir, 0o700);
    changed.push(`the folder (was ${octal(folder.mode)})`);
  }
  let files = 0;
  for (const entry of readdirSync(dataDir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(dataDir, entry.name);
    const mode = statSync(file).mode;
    if ((mode & 0o077) === 0) continue;
    chmodSync(file, (mode & 0o700) | 0o600);
    files += 1;
  }
  if (files > 0) changed.push(`${files} ${files === 1 ? 'file' : 'files'} in it`);
  if (changed.length > 0) log(`made the data folder ${dataDir} readable by you alone: ${changed.join(' and ')} could be read by other accounts on this machine`);
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/** A file of the data folder (the history database: SQLite gives its -wal and -shm files the same mode) readable by the user alone. */
export function keepFilePrivate(file: string): void {
  if (process.platform === 'win32') return;
  const mode = statSync(file).mode;
  if ((mode & 0o077) !== 0) chmodSync(file, (mode & 0o700) | 0o600);
}
