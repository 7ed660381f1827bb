import { closeSync, openSync, readSync, statSync } from 'node:fs';

/**
 * Test seam (issue 26): how many transactions were committed into a SQLite database's write-ahead
 * log since it was last reset, read from the file itself — each commit frame names the database's
 * size after it (the other frames say 0). With `synchronous = FULL` each commit is one sync of the
 * log, so this counts durable writes without timing anything. The connection writing must not
 * checkpoint meanwhile (`PRAGMA wal_autocheckpoint = 0`): a checkpoint lets the log start over.
 */
export function walCommits(databaseFile: string): number {
  const wal = `${databaseFile}-wal`;
  const size = statSync(wal, { throwIfNoEntry: false })?.size ?? 0;
  if (size < 32) return 0;
  const fd = openSync(wal, 'r');
  try {
    const header = Buffer.alloc(32);
    readSync(fd, header, 0, 32, 0);
    const pageSize = header.readUInt32BE(8);
    const salt = [header.readUInt32BE(16), header.readUInt32BE(20)];
    const frame = Buffer.alloc(24);
    let commits = 0;
    for (let at = 32; at + 24 + pageSize <= size; at += 24 + pageSize) {
      readSync(fd, frame, 0, 24, at);
      // A frame of an earlier generation of the log (before it started over): the log ends here.
      if (frame.readUInt32BE(8) !== salt[0] || frame.readUInt32BE(12) !== salt[1]) break;
      if (frame.readUInt32BE(4) !== 0) commits += 1;
    }
    return commits;
  } finally {
    closeSync(fd);
  }
}
