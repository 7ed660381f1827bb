import type { EventJournal } from './event-journal';
import { interruptedEnd } from './interrupted-end';
import { removeFreeRunLock, runLockState } from './run-lock';

const HOST_STOPPED = 'The Steward host stopped while this run was in progress. Tool calls it had started are never re-run.';
export const COMMAND_STOPPED = 'The steward command running this run stopped (killed or crashed) before it ended. Tool calls it had started are never re-run.';

export interface InterruptedRunsOptions {
  dataDir: string;
  /** Runs waiting for a person, read from the history when asked (a command parks its run before it lets go of it). */
  waiting: () => ReadonlySet<string>;
  log: (line: string) => void;
}

/** A run whose writer was found gone: the host that stopped, or the steward command (its lock free, or let go). */
export interface StoppedRun {
  runId: string;
  by: 'host' | 'command';
}

/**
 * At a host's start none of its own runs is active, so a run the history holds open was cut off when
 * it last stopped (crash, kill), or by a steward command that died while writing it with no app
 * (its lock is free): closed as interrupted, continuing its sequence, unless it waits for a person.
 * A run a live command still writes (its lock is held) is never closed: its id is returned, so the
 * host follows it (command-runs-watch.ts).
 */
export function closeInterruptedRuns(journal: EventJournal, options: InterruptedRunsOptions): { closed: string[]; live: string[] } {
  const live: string[] = [];
  const stopped: StoppedRun[] = [];
  for (const run of journal.openRuns()) {
    const lock = runLockState(options.dataDir, run.run_id);
    if (lock === 'held') live.push(run.run_id);
    else stopped.push({ runId: run.run_id, by: lock === 'free' ? 'command' : 'host' });
  }
  return { closed: closeStopped(journal, stopped, options), live };
}

/** Open runs a live steward command is writing with no app (their locks are held): not to be deleted. */
export function liveCommandRuns(journal: EventJournal, dataDir: string): string[] {
  return journal.openRuns().flatMap((run) => (runLockState(dataDir, run.run_id) === 'held' ? [run.run_id] : []));
}

/**
 * Closes runs whose writer was found gone, as interrupted: read again after their locks were seen
 * free, since a command makes its run's end (or its checkpoint) durable before it lets go, so a run
 * that ended or waits for a person meanwhile is left as it is. Returns the ids closed.
 */
export function closeStopped(journal: EventJournal, stopped: readonly StoppedRun[], options: InterruptedRunsOptions): string[] {
  if (stopped.length === 0) return [];
  const waiting = options.waiting();
  const open = new Map(journal.openRuns().map((run) => [run.run_id, run]));
  const closed: string[] = [];
  for (const { runId, by } of stopped) {
    const run = open.get(runId);
    if (run && !waiting.has(runId) && journal.append([interruptedEnd(run, by === 'host' ? HOST_STOPPED : COMMAND_STOPPED)]) === 1) {
      closed.push(runId);
      options.log(by === 'host' ? `run ${runId} was interrupted by a host stop; closed its trace` : `run ${runId} of a steward command that stopped was closed as interrupted`);
    }
    if (by === 'command') removeFreeRunLock(options.dataDir, runId);
  }
  return closed;
}
