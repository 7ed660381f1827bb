import type { EventJournal } from './event-journal';
import { closeStopped, type InterruptedRunsOptions, type StoppedRun } from './interrupted-runs';
import { runLockState } from './run-lock';

/** How often the host looks for what a steward command wrote. */
const POLL_MS = 200;

export interface CommandRunsWatch {
  /** Runs a live steward command is writing now (they may not be deleted). */
  liveRunIds(): string[];
  stop(): void;
}

/**
 * A steward command that ran with no app writes its run straight into the history, and may still
 * be writing it when the host starts (or start in the moment before the host took the folder). The
 * host looks every 200 ms: what another connection appended is told to its subscribers (the pages'
 * feed, retention) through the journal (`catchUp`: one pragma when nothing changed), so Runs shows
 * the command's run live; and a run whose command died meanwhile (its lock free) is closed as
 * interrupted then, not at the next start.
 */
export function watchCommandRuns(journal: EventJournal, options: InterruptedRunsOptions & { live: readonly string[]; pollMs?: number }): CommandRunsWatch {
  const live = new Set(options.live);
  /** Runs another connection wrote that this watch has not judged yet. */
  const seen = new Set<string>();
  const unsubscribe = journal.subscribe((slice) => {
    if (!slice.foreign) return;
    for (const event of slice.events) if (!live.has(event.run_id)) seen.add(event.run_id);
  });
  let lastProblem = '';
  const tick = () => {
    try {
      journal.catchUp();
      const stopped: StoppedRun[] = [];
      for (const runId of seen) {
        const lock = runLockState(options.dataDir, runId);
        if (lock === 'held') live.add(runId);
        else if (lock === 'free') stopped.push({ runId, by: 'command' });
      }
      seen.clear();
      for (const runId of live) if (runLockState(options.dataDir, runId) !== 'held') stopped.push({ runId, by: 'command' });
      // Ended, parked for a person, or closed here: no longer followed.
      for (const { runId } of stopped) live.delete(runId);
      closeStopped(journal, stopped, options);
      lastProblem = '';
    } catch (error) {
      // Said once, not every 200 ms; the next look tries again.
      const problem = error instanceof Error ? error.message : String(error);
      if (problem !== lastProblem) options.log(`could not look for what steward commands wrote to the history: ${problem}`);
      lastProblem = problem;
    }
  };
  const timer = setInterval(tick, options.pollMs ?? POLL_MS);
  timer.unref();
  return {
    liveRunIds: () => [...live],
    stop() {
      clearInterval(timer);
      unsubscribe();
    },
  };
}
