import { describe, expect, it } from 'vitest';
import { eventId, RUN_STATUSES, RUN_STATUS_LABELS, RunEvent } from './events';

const envelope = { id: 'run-0001:000001', run_id: 'run-0001', seq: 1, ts: '2026-01-01T00:00:00.000Z' };
const started = { ...envelope, type: 'round.started', round: 1, proposer: 'student' };

describe('the RunEvent contract', () => {
  it('an event with its envelope parses', () => {
    expect(RunEvent.parse(started)).toEqual(started);
  });

  it('every envelope field is required and checked', () => {
    for (const key of ['id', 'run_id', 'seq', 'ts'] as const) {
      const { [key]: _dropped, ...rest } = started;
      expect(RunEvent.safeParse(rest).success, key).toBe(false);
    }
    expect(RunEvent.safeParse({ ...started, id: 'short' }).success).toBe(false);
    expect(RunEvent.safeParse({ ...started, run_id: 'r' }).success).toBe(false);
    expect(RunEvent.safeParse({ ...started, seq: -1 }).success).toBe(false);
    expect(RunEvent.safeParse({ ...started, seq: 1.5 }).success).toBe(false);
  });

  it('unknown keys and unknown types are rejected', () => {
    expect(RunEvent.safeParse({ ...started, extra: true }).success).toBe(false);
    expect(RunEvent.safeParse({ ...started, type: 'round.exploded' }).success).toBe(false);
  });

  it('each event type checks its own payload', () => {
    expect(RunEvent.safeParse({ ...started, proposer: 'committee' }).success).toBe(false);
    expect(RunEvent.safeParse({ ...envelope, type: 'decision.selected', round: 1, source: 'teacher', decision: { decision_type: 'complete', output: 'x' } }).success).toBe(true);
    expect(RunEvent.safeParse({ ...envelope, type: 'decision.selected', round: 1, source: 'teacher', decision: { decision_type: 'complete' } }).success).toBe(false);
    expect(RunEvent.safeParse({ ...envelope, type: 'decision.authorized', round: 1, authorization: { ok: false, reason: 'duplicate_execution', message: 'm' } }).success).toBe(true);
    expect(RunEvent.safeParse({ ...envelope, type: 'decision.authorized', round: 1, authorization: { ok: false, reason: 'because', message: 'm' } }).success).toBe(false);
  });

  it('run.finished never reports running, and counts at least itself', () => {
    const finished = { ...envelope, type: 'run.finished', status: 'completed', rounds: 2, event_count: 9 };
    expect(RunEvent.safeParse(finished).success).toBe(true);
    expect(RunEvent.safeParse({ ...finished, status: 'running' }).success).toBe(false);
    expect(RunEvent.safeParse({ ...finished, event_count: 0 }).success).toBe(false);
  });

  it('a round.completed record must satisfy the RoundRecord contract', () => {
    const record = { round: 1, proposer: 'student', candidate: {}, verdicts: [], outcome: 'failed', reason: 'cancelled' };
    expect(RunEvent.safeParse({ ...envelope, type: 'round.completed', round: 1, record }).success).toBe(true);
    expect(RunEvent.safeParse({ ...envelope, type: 'round.completed', round: 1, record: { ...record, outcome: 'maybe' } }).success).toBe(false);
  });

  it('event ids are the run id and a zero-padded sequence, so they sort and dedupe', () => {
    expect(eventId('run-abc', 7)).toBe('run-abc:000007');
    expect(eventId('run-abc', 10) > eventId('run-abc', 9)).toBe(true);
  });

  it('every run status has a label', () => {
    expect(Object.keys(RUN_STATUS_LABELS).sort()).toEqual([...RUN_STATUSES].sort());
  });
});
