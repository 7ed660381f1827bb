import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

/**
 * Writes a whole file atomically: a temporary sibling, filled by `fill` a piece at a time (a file of any
 * size in bounded memory), flushed, then renamed over `path`. On any failure (of the disk, or thrown by
 * `fill`) the sibling is removed and the error goes on: `path` never holds half a file. The sibling is
 * made new (O_EXCL): a link planted at its name is never followed, and `path`'s own link is replaced.
 */
export function writeFileAtomic<T>(path: string, fill: (write: (text: string) => void) => T, mode = 0o600): T {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  let fd: number | undefined = openSync(temp, 'wx', mode);
  try {
    const open = fd;
    const result = fill((text) => {
      writeSync(open, text);
    });
    fsyncSync(open);
    closeSync(open);
    fd = undefined;
    renameSync(temp, path);
    return result;
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
}
