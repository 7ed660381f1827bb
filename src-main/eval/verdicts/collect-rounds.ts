import type { EventJournal } from '../../events/event-journal';
import { recordedRounds, type RecordedRound } from './recorded-rounds';

/**
 * The recorded rounds `keep` takes from a history, newest runs first (and newest rounds first within
 * a run), until `limit` of them are kept or `maxRuns` runs were read. `steward eval verdicts` and the
 * host's profile replay (the Settings screen's button) read the same way.
 */
export function collectRounds(
  journal: Pick<EventJournal, 'runsPage' | 'runEvents'>,
  keep: (round: RecordedRound) => boolean,
  limit: number,
  maxRuns = Number.POSITIVE_INFINITY,
): { rounds: RecordedRound[]; runs: number; truncated: boolean } {
  const rounds: RecordedRound[] = [];
  let runs = 0;
  let read = 0;
  let after;
  do {
    const page = journal.runsPage({ limit: 200, ...(after ? { after } : {}) });
    for (const listed of page.runs) {
      if (read >= maxRuns) return { rounds: rounds.slice(0, limit), runs, truncated: true };
      read += 1;
      const kept = recordedRounds(journal.runEvents(listed.run.run_id)).filter(keep);
      if (kept.length > 0) runs += 1;
      rounds.push(...kept.reverse());
      if (rounds.length >= limit) return { rounds: rounds.slice(0, limit), runs, truncated: true };
    }
    after = page.next;
  } while (after);
  return { rounds, runs, truncated: false };
}
