import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * A steward command that runs with no app writes its run straight into the history (issue 26).
 * Whether that command still lives is told by a lock per run, not by a pid (a pid is reused): the
 * command holds an exclusive transaction on a small SQLite file named for the run for as long as it
 * writes it, and the operating system drops that lock the moment the process dies, however it dies.
 * The file is made before the run's first event is written and removed only after its last (its
 * end, or the checkpoint of a run that waits): an open run whose lock file is there and free was
 * abandoned by a command that died.
 */
export const runLockDir = (dataDir: string) => join(dataDir, 'cli-run-locks');

/** `<run id, base64url>.run.lock` (the spools of older versions had `<pid>-<hex>.jsonl.lock` here). */
const runLockPath = (dataDir: string, runId: string) => join(runLockDir(dataDir), `${Buffer.from(runId, 'utf8').toString('base64url')}.run.lock`);

/** The run's lock could not be taken: its events are not written (nobody could tell this command from a dead one). */
export class RunLockError extends Error {
  readonly code = 'run_lock_failed' as const;
  constructor(
    readonly runId: string,
    reason: string,
  ) {
    super(`Could not take the lock of run ${runId} (${reason}), so the run was not started into the history. Check that the data folder is writable, then try again.`);
    this.name = 'RunLockError';
  }
}

export interface RunLock {
  readonly runId: string;
  /** Lets go of the run (after its last event is durable): idempotent. */
  release(): void;
}

/** Takes the run's lock, for as long as this process writes the run. */
export function holdRunLock(dataDir: string, runId: string): RunLock {
  const file = runLockPath(dataDir, runId);
  let db: Database.Database | undefined;
  try {
    mkdirSync(runLockDir(dataDir), { recursive: true });
    db = new Database(file, { timeout: 0 });
    // Nothing is ever written here: no journal file beside the lock.
    db.pragma('journal_mode = MEMORY');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db?.close();
    throw new RunLockError(runId, error instanceof Error ? error.message : String(error));
  }
  const held = db;
  return {
    runId,
    release() {
      if (!held.open) return;
      held.exec('ROLLBACK');
      held.close();
      rmSync(file, { force: true });
    },
  };
}

/**
 * `none`: no lock file (not a command's run, or its command ended it and let go); `held`: a live
 * command writes it; `free`: the file is there and nobody holds it (its command died).
 */
export type RunLockState = 'none' | 'held' | 'free';

export function runLockState(dataDir: string, runId: string): RunLockState {
  const file = runLockPath(dataDir, runId);
  if (!existsSync(file)) return 'none';
  let probe: Database.Database;
  try {
    // Never made here: a file its command removed meanwhile is `none`, not a fresh free lock.
    probe = new Database(file, { timeout: 0, fileMustExist: true });
  } catch {
    // Gone meanwhile (its command let go), or unreadable: never judged dead on what cannot be read.
    return existsSync(file) ? 'held' : 'none';
  }
  try {
    probe.pragma('journal_mode = MEMORY');
    probe.exec('BEGIN IMMEDIATE');
    probe.exec('ROLLBACK');
    return 'free';
  } catch {
    // Busy: its command holds it.
    return 'held';
  } finally {
    probe.close();
  }
}

/** Removes a free lock file once its run was closed (a held one is never touched). */
export function removeFreeRunLock(dataDir: string, runId: string): void {
  if (runLockState(dataDir, runId) === 'free') rmSync(runLockPath(dataDir, runId), { force: true });
}
