import { describe, expect, it } from 'vitest';
import { RunEvent } from '../contracts/events';
import { summarize } from './run-summary';
import { ordinal, roundsText } from './rounds-words';

/** Issue 28: "its header counts 2 rounds where the tab says 3" — Runs, the header and the CLI say one thing. */

const RUN = 'run-rounds-words-1';
let seq = 0;
const at = (payload: Record<string, unknown>): RunEvent => {
  seq += 1;
  return RunEvent.parse({ id: `${RUN}:${seq}`, run_id: RUN, seq, ts: `2026-12-05T09:00:${String(seq).padStart(2, '0')}Z`, ...payload });
};

describe('a run whose third round a host stop cut off', () => {
  // Three rounds began; run.finished says two completed (a round.completed needs a whole record, so these events leave it out).
  const events = [at({ type: 'round.started', round: 0, proposer: 'student' }), at({ type: 'round.started', round: 1, proposer: 'student' }), at({ type: 'round.started', round: 2, proposer: 'student' })];
  const finished = at({ type: 'run.finished', status: 'interrupted', rounds: 2, event_count: 4, message: 'The Steward host stopped while this run was in progress.' });

  it('folds into a row that knows the round begun: Runs counts what the Rounds tab counts, and says what became of the third', () => {
    const live = summarize(undefined, events, events.length)!;
    expect(live).toMatchObject({ status: 'running', rounds: 0, rounds_seen: 3 });
    expect(roundsText({ ...live, rounds: 2 })).toBe('3 · the 3rd in progress');
    const ended = summarize(live, [finished], 1)!;
    expect(ended).toMatchObject({ status: 'interrupted', rounds: 2, rounds_seen: 3 });
    expect(roundsText(ended)).toBe('3 · the 3rd was interrupted');
    // Folding the same events again (a replay, a second page) changes nothing.
    expect(summarize(ended, [...events, finished], 0)).toEqual(ended);
  });

  it('a run that ended otherwise mid-round says it did not finish; a row folded before rounds_seen existed reads as before', () => {
    expect(roundsText({ status: 'failed', rounds: 1, rounds_seen: 2 })).toBe('2 · the 2nd did not finish');
    expect(roundsText({ status: 'completed', rounds: 4 })).toBe('4');
    // The run view's own count of the rounds it holds (its tab) wins when the row has not seen them yet.
    expect(roundsText({ status: 'interrupted', rounds: 2 }, 3)).toBe('3 · the 3rd was interrupted');
  });
});

describe('ordinal', () => {
  it('says 1st, 2nd, 3rd, 4th, 11th–13th, 21st, 112th', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 112].map(ordinal)).toEqual(['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '23rd', '101st', '112th']);
  });
});
