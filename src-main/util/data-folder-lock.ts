import { hostname } from 'node:os';
import { join } from 'node:path';
import { describeHolder, isStale, newLockRecord, removeStale, tryLock, unlock, type LockRecord } from './lock-file';

/**
 * One Steward host per data folder. Two hosts on one folder would both resume the same waiting run
 * and each close the other's live runs as interrupted; so createHost takes this lock first and
 * releases it on close. A second start is refused with the holder's name; a lock left by a process
 * that no longer exists on this machine (crash, kill -9) is recovered.
 */
export const DATA_FOLDER_LOCK_FILE = 'steward.lock';

export class DataFolderInUseError extends Error {
  override readonly name = 'DataFolderInUseError';
  constructor(
    readonly dataDir: string,
    readonly holder: LockRecord | null,
  ) {
    super(
      holder
        ? `the data folder ${dataDir} is in use by ${describeHolder(holder)}. Stop that Steward first, or use another --data-dir.` +
            (holder.hostname === hostname() ? '' : ` If you are sure it is not running there, delete ${join(dataDir, DATA_FOLDER_LOCK_FILE)}.`)
        : `the data folder ${dataDir} is being opened by another Steward right now; try again in a moment.`,
    );
  }
}

export interface DataFolderLock {
  readonly holder: LockRecord;
  /** Idempotent; removes the lock file only while it is still this one. */
  release(): void;
}

/** A lock file another process is still writing is given this long before it counts as a crash leftover. */
const UNREADABLE_GRACE_MS = 5_000;

export function acquireDataFolderLock(dataDir: string, who: Pick<LockRecord, 'shell' | 'port'>, log: (line: string) => void = () => undefined): DataFolderLock {
  const path = join(dataDir, DATA_FOLDER_LOCK_FILE);
  const record = newLockRecord(who);
  // A few rounds at most: each one either wins, refuses, or removes one stale lock.
  for (let attempt = 0; attempt < 5; attempt++) {
    const result = tryLock(path, record);
    if (result.kind === 'acquired') {
      let released = false;
      return {
        holder: record,
        release() {
          if (released) return;
          released = true;
          unlock(path, record);
        },
      };
    }
    if (result.kind === 'held') {
      if (!isStale(result.holder)) throw new DataFolderInUseError(dataDir, result.holder);
      if (removeStale(path, result.holder)) log(`recovered a stale lock on ${dataDir}: ${describeHolder(result.holder)} is no longer running`);
      continue;
    }
    if (result.ageMs < UNREADABLE_GRACE_MS) throw new DataFolderInUseError(dataDir, null);
    if (removeStale(path, null)) log(`recovered an unreadable lock file on ${dataDir} (left by a crash while it was written)`);
  }
  throw new DataFolderInUseError(dataDir, null);
}
