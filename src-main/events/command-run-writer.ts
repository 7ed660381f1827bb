import { existsSync } from 'node:fs';
import type { RunEvent } from '@shared/contracts/events';
import { acquireDataFolderLock, DataFolderInUseError } from '../util/data-folder-lock';
import { sleepSync } from '../util/lock-file';
import type { EventJournal } from './event-journal';
import type { JournalWriter } from './journal-writer';
import { legacyJournalPath, openHistory } from './open-history';
import { holdRunLock, RunLockError, type RunLock } from './run-lock';

/** How long events gather before one write + sync, by default (as the host's journal writer). */
const WINDOW_MS = 5;
/** Another command holds the folder a moment (moving an old journal in): waited for this long at most. */
const BUSY_WAIT_MS = 10_000;

/**
 * How a steward command that runs with no app writes its runs (issue 26): straight into the data
 * folder's history database as they go, batched as the host's journal writer batches (a few ms, one
 * transaction and one sync), so a page, a `steward runs show` or a host that starts meanwhile reads
 * them at once and a killed command loses nothing it wrote. Opening reads nothing proportional to the
 * history. Each run's lock (run-lock.ts) is taken before its first event is written and let go only
 * after its last, so a host never takes a live command's run for an abandoned one.
 *
 * As in the host (journal-writer.ts), it is a JournalWriter: the idempotency ledger shares its
 * connection (mcp/journal-ledger.ts) and claims a tool call's key with `commit`, carrying the round's
 * events — the committed decision among them — in that one transaction, and a waiting run's
 * checkpoint commits with its last events the same way: one durable write per round.
 */
export interface CommandRunWriter extends JournalWriter {
  /** The history it writes (its connection is the ledger's and the checkpoints'). */
  readonly journal: EventJournal;
  /** Writes what is pending now (at the end): undefined, or why it is not all stored. */
  flush(): string | undefined;
  /** Why a run's events were never written (its lock could not be taken), if so: it must not be parked. */
  refused(): string | undefined;
  /** Lets go of the runs and of the history: after the last flush (and a waiting run's checkpoint). Idempotent. */
  close(): void;
}

export function openCommandRunWriter(dataDir: string, log: (line: string) => void, options: { windowMs?: number } = {}): CommandRunWriter {
  const windowMs = options.windowMs ?? WINDOW_MS;
  const journal = openToWrite(dataDir, log);
  const locks = new Map<string, RunLock>();
  /** Runs whose lock could not be taken: never written (a host could not tell them from abandoned ones). */
  const unlocked = new Map<string, RunLockError>();
  let pending: RunEvent[] = [];
  /** Writes riding in the next commit (a ledger key's outcome): see JournalWriter.later. */
  let riding: Array<() => void> = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastProblem: string | undefined;
  let closed = false;

  const refused = () => [...unlocked.values()].map((error) => error.message)[0];
  const noted = (error: unknown): string => {
    // Kept, in order: the next write tries them again (another process's long write, a disk that was full).
    const problem = error instanceof Error ? error.message : String(error);
    if (problem !== lastProblem) log(problem);
    lastProblem = problem;
    return problem;
  };
  /** One transaction: the pending events, the writes riding along, then `step`; all of it stays pending if it fails. */
  const write = (step?: () => void) => {
    clearTimeout(timer);
    timer = undefined;
    const steps = riding;
    journal.append(pending, {
      made: true,
      within: () => {
        for (const ride of steps) {
          try {
            ride();
          } catch (error) {
            log(`a deferred history write failed: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
        step?.();
      },
    });
    pending = [];
    riding = [];
    lastProblem = undefined;
  };

  const flush = (): string | undefined => {
    clearTimeout(timer);
    timer = undefined;
    if (closed || (pending.length === 0 && riding.length === 0)) return refused() ?? lastProblem;
    try {
      write();
      return refused();
    } catch (error) {
      return noted(error);
    }
  };

  return {
    journal,
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
      // A committed decision is durable before anything acts on it: a tool call's by the ledger's claim (commit), anything else now.
      if (event.type === 'decision.committed' && event.decision.decision_type !== 'tool_call') flush();
      else timer ??= setTimeout(flush, windowMs);
    },
    flush,
    refused,
    commit(step) {
      if (closed) throw new Error(`the history ${journal.path} was closed by this command before this write`);
      let stepFailed: { error: unknown } | undefined;
      try {
        write(() => {
          try {
            step();
          } catch (error) {
            stepFailed = { error };
            throw error;
          }
        });
        return;
      } catch (error) {
        // The write failed: nothing of it is stored, the events stay pending; the caller fails closed.
        if (!stepFailed) {
          noted(error);
          throw error;
        }
      }
      // The step refused (a key already claimed) and rolled everything back: the rest is written without it.
      flush();
      throw stepFailed.error;
    },
    later(step) {
      if (closed) return;
      riding.push(step);
      timer ??= setTimeout(flush, windowMs);
    },
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
