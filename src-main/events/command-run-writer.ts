import { existsSync } from 'node:fs';
import type { RunEvent } from '@shared/contracts/events';
import { acquireDataFolderLock, DataFolderInUseError } from '../util/data-folder-lock';
import { sleepSync } from '../util/lock-file';
import type { EventJournal } from './event-journal';
import { legacyJournalPath, openHistory } from './open-history';
import { holdRunLock, RunLockError, type RunLock } from './run-lock';

/** How long events gather before one write + sync (as the host's journal writer). */
const WINDOW_MS = 5;
/** Another command holds the folder a moment (moving an old journal in): waited for this long at most. */
const BUSY_WAIT_MS = 10_000;

/**
 * How a steward command that runs with no app writes its runs (issue 26): straight into the data
 * folder's history database as they go, batched as the host's journal writer batches (a few ms, one
 * transaction and one sync; a committed decision at once, before its tool runs), so a page, a
 * `steward runs show` or a host that starts meanwhile reads them at once and a killed command loses
 * nothing it wrote. Opening reads nothing proportional to the history. Each run's lock (run-lock.ts)
 * is taken before its first event is written and let go only after its last, so a host never takes a
 * live command's run for an abandoned one.
 */
export interface CommandRunWriter {
  onEvent(event: RunEvent): void;
  /** Writes what is pending now (before a checkpoint, at the end): undefined, or why it is not all stored. */
  flush(): string | undefined;
  /** Lets go of the runs and of the history: after the last flush (and a waiting run's checkpoint). Idempotent. */
  close(): void;
}

export function openCommandRunWriter(dataDir: string, log: (line: string) => void): CommandRunWriter {
  const journal = openToWrite(dataDir, log);
  const locks = new Map<string, RunLock>();
  /** Runs whose lock could not be taken: never written (a host could not tell them from abandoned ones). */
  const unlocked = new Map<string, RunLockError>();
  let pending: RunEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastProblem: string | undefined;
  let closed = false;

  const flush = (): string | undefined => {
    clearTimeout(timer);
    timer = undefined;
    const refused = [...unlocked.values()].map((error) => error.message);
    if (closed || pending.length === 0) return refused[0];
    try {
      journal.append(pending, { made: true });
      pending = [];
      lastProblem = undefined;
      return refused[0];
    } catch (error) {
      // Kept, in order: the next flush tries them again (another process's long write, a disk that was full).
      const problem = error instanceof Error ? error.message : String(error);
      if (problem !== lastProblem) log(problem);
      lastProblem = problem;
      return problem;
    }
  };

  return {
    onEvent(event) {
      if (closed || unlocked.has(event.run_id)) return;
      if (!locks.has(event.run_id)) {
        try {
          locks.set(event.run_id, holdRunLock(dataDir, event.run_id));
        } catch (error) {
          if (!(error instanceof RunLockError)) throw error;
          unlocked.set(event.run_id, error);
          log(error.message);
          return;
        }
      }
      pending.push(event);
      // A committed decision is followed by its tool call: the history holds it before anything runs.
      if (event.type === 'decision.committed') flush();
      else timer ??= setTimeout(flush, WINDOW_MS);
    },
    flush,
    close() {
      if (closed) return;
      clearTimeout(timer);
      closed = true;
      // After the last write: a run let go of is ended, waiting, or (its write failed) closed as interrupted at the next start.
      for (const lock of locks.values()) lock.release();
      journal.close();
    },
  };
}

/**
 * The history, open to write. An older Steward's journal still to be moved in (at the first open) is
 * moved under the folder's lock, as the app moves it at its start: never by two processes at once.
 */
function openToWrite(dataDir: string, log: (line: string) => void): EventJournal {
  const deadline = Date.now() + BUSY_WAIT_MS;
  while (existsSync(legacyJournalPath(dataDir))) {
    let lock;
    try {
      lock = acquireDataFolderLock(dataDir, { shell: 'cli' }, log);
    } catch (error) {
      if (!(error instanceof DataFolderInUseError)) throw error;
      const app = error.holder?.shell === 'electron' || error.holder?.shell === 'browser';
      // The app moves it at its start, and then takes steward commands itself: this one is told to try again.
      if (app || Date.now() > deadline) throw error;
      // Nothing runs yet: the command may wait here.
      sleepSync(50);
      continue;
    }
    try {
      return openHistory(dataDir, { log });
    } finally {
      lock.release();
    }
  }
  return openHistory(dataDir, { log });
}
