import { existsSync } from 'node:fs';
import type { EventJournal } from '../../events/event-journal';
import { openHistory } from '../../events/open-history';
import { closeInterruptedRuns } from '../../events/interrupted-runs';
import { waitingStoresOn } from '../../engine/waiting-stores';
import { acquireDataFolderLock, DataFolderInUseError, type DataFolderLock } from '../../util/data-folder-lock';
import { defaultDataDir } from '../../util/data-dir';
import type { CliIo } from './cli-io';
import { typedPath } from './typed-path';

/** The data folder's history, open for reading: `close` lets go of it (and of the folder). */
export type HistoryToRead =
  | { ok: true; dataDir: string; journal: EventJournal; close: () => void }
  /** No data folder there: no history to read (nothing was made). */
  | { ok: false; missing: true; dataDir: string }
  | { ok: false; missing: false; message: string };

/** Another steward command holds the folder a moment (a run of its own ending): waited for this long at most. */
const BUSY_WAIT_MS = 5_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The history a read command reads: the running app's own journal when the app runs this command
 * (forwarded over its channel), else the data folder's, under the folder's lock as delete and
 * import take it (it is never created here: a folder that is not there has no runs).
 */
export async function historyToRead(io: CliIo, dataDirFlag: string | undefined): Promise<HistoryToRead> {
  if (io.hosted) {
    // What the host's writer still holds (a few ms of events) first: the answer is the history as of now.
    io.hosted.flush();
    return { ok: true, dataDir: io.hosted.dataDir, journal: io.hosted.journal, close: () => undefined };
  }
  const dataDir = dataDirFlag !== undefined ? typedPath(io, dataDirFlag) : defaultDataDir(io.env);
  if (!existsSync(dataDir)) return { ok: false, missing: true, dataDir };
  const locked = await lockToRead(dataDir);
  if (!locked.ok) return { ok: false, missing: false, message: locked.message };
  const log = (line: string) => io.stderr(`steward: ${line}\n`);
  let journal: EventJournal;
  try {
    journal = openHistory(dataDir, { log });
  } catch (error) {
    locked.lock.release();
    throw error;
  }
  try {
    closeStoppedRuns(journal, dataDir, log);
  } catch (error) {
    journal.close();
    locked.lock.release();
    throw error;
  }
  return {
    ok: true,
    dataDir,
    journal,
    close: () => {
      journal.close();
      locked.lock.release();
    },
  };
}

/**
 * With the folder's lock held no host writes here, so a run the history holds open whose steward
 * command is gone (its run lock free) or whose host stopped is closed as interrupted now, as the
 * next host start would: the list never shows a dead run as running. A run a live command writes
 * (its lock held) and a run waiting for a person are left as they are.
 */
function closeStoppedRuns(journal: EventJournal, dataDir: string, log: (line: string) => void): void {
  const db = journal.connection;
  // Opening the stores moves an older Steward's waiting-run files in first: they are waiting runs too.
  waitingStoresOn(db, { now: (step) => db.transaction(step).immediate() }, dataDir, log);
  const waiting = () => new Set(db.prepare<[], { run_id: string }>('SELECT DISTINCT run_id FROM waiting').all().map((row) => row.run_id));
  closeInterruptedRuns(journal, { dataDir, waiting, log });
}

async function lockToRead(dataDir: string): Promise<{ ok: true; lock: DataFolderLock } | { ok: false; message: string }> {
  const deadline = Date.now() + BUSY_WAIT_MS;
  for (;;) {
    try {
      return { ok: true, lock: acquireDataFolderLock(dataDir, { shell: 'cli' }) };
    } catch (error) {
      if (!(error instanceof DataFolderInUseError)) throw error;
      const app = error.holder?.shell === 'electron' || error.holder?.shell === 'browser';
      if (app) {
        // A running app is handed this command over its channel: it holds the folder without one only while it starts or stops.
        return {
          ok: false,
          message: `the Steward app holds the data folder ${dataDir}, yet it did not take this command (it hands every steward runs command to the app while the app runs: is it starting or stopping?). Try again in a moment, or look in the app's Runs screen.`,
        };
      }
      if (Date.now() > deadline) return { ok: false, message: `${error.message} (another steward command is using the history: try again when it ends)` };
      await sleep(50);
    }
  }
}
