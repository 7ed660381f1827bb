import type { EventJournal } from '../../events/event-journal';
import { isVerdictCase, recordedRounds, type RecordedRound } from './recorded-rounds';
import { isJudgmentCase, recordedJudgments, type RecordedJudgment } from './recorded-judgments';

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

/**
 * Every case a candidate teacher is asked (issue 31), newest runs first, in one read of each run: the
 * recorded reviews (a teacher's verdict or a person's answer, isVerdictCase) and the pattern judgments
 * whose prompt was recorded. `limit` counts both; `unasked` counts judgments recorded before their prompt was;
 * `runs` the runs any case came from, `reviewRuns` those of the reviews.
 */
export function collectCases(
  journal: Pick<EventJournal, 'runsPage' | 'runEvents'>,
  limit: number,
  maxRuns = Number.POSITIVE_INFINITY,
): { rounds: RecordedRound[]; judgments: RecordedJudgment[]; unasked: number; runs: number; reviewRuns: number; truncated: boolean } {
  const rounds: RecordedRound[] = [];
  const judgments: RecordedJudgment[] = [];
  let unasked = 0;
  let runs = 0;
  let reviewRuns = 0;
  let read = 0;
  let after;
  const done = (truncated: boolean) => ({ rounds, judgments, unasked, runs, reviewRuns, truncated });
  do {
    const page = journal.runsPage({ limit: 200, ...(after ? { after } : {}) });
    for (const listed of page.runs) {
      if (read >= maxRuns) return done(true);
      read += 1;
      const events = journal.runEvents(listed.run.run_id);
      const kept = recordedRounds(events).filter(isVerdictCase);
      const judged = recordedJudgments(events);
      const asked = judged.filter(isJudgmentCase);
      unasked += judged.length - asked.length;
      if (kept.length + asked.length > 0) runs += 1;
      // The last run read gives what room is left, its newest first: reviews, then judgments.
      const room = limit - rounds.length - judgments.length;
      const newest = kept.reverse().slice(0, room);
      if (newest.length > 0) reviewRuns += 1;
      rounds.push(...newest);
      judgments.push(...asked.reverse().slice(0, room - newest.length));
      if (rounds.length + judgments.length >= limit) return done(true);
    }
    after = page.next;
  } while (after);
  return done(false);
}
