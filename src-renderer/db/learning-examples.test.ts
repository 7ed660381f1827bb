import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LearningExample } from '@shared/contracts/learning-export';
import { StewardDb } from './db';
import { ingestEvents } from './ingest-events';
import { blockedRound, eventLog, finishRun, readExecutedRound, startRun, writeReplacedRound } from '../testing/event-fixtures';

let db: StewardDb;
beforeEach(async () => {
  db = new StewardDb(`steward-learning-test-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

function runWithExamples(runId: string) {
  const log = eventLog(runId);
  startRun(log);
  readExecutedRound(log, 0);
  writeReplacedRound(log, 1);
  writeReplacedRound(log, 2);
  blockedRound(log, 3);
  finishRun(log, 'blocked', 4);
  return log;
}

describe('learning examples at ingest', () => {
  it('each learning.example event becomes one example, however often and in whatever batches it arrives', async () => {
    const log = runWithExamples('run-learning-0001');
    const learning = log.events.filter((e) => e.type === 'learning.example');
    expect(learning).toHaveLength(2);

    await ingestEvents(db, log.events.slice(0, 20));
    await ingestEvents(db, log.events);
    await ingestEvents(db, log.events.slice(10));
    await ingestEvents(db, [...log.events].reverse());

    const stored = await db.learning_examples.orderBy('id').toArray();
    expect(stored.map((e) => e.id)).toEqual(learning.map((e) => e.id));
    for (const example of stored) {
      expect(() => LearningExample.parse(example)).not.toThrow();
      expect(example).toMatchObject({ run_id: 'run-learning-0001', spec_id: 'notes-cleanup', kind: 'review', verdict: { verdict: 'replace' } });
    }
  });

  it('an example stored before its run’s start learns its workflow when the start arrives', async () => {
    const log = runWithExamples('run-learning-0002');
    const start = log.events.filter((e) => e.type === 'run.started');
    const rest = log.events.filter((e) => e.type !== 'run.started');
    await ingestEvents(db, rest);
    expect((await db.learning_examples.toArray()).every((e) => e.spec_id === undefined)).toBe(true);
    await ingestEvents(db, start);
    expect((await db.learning_examples.toArray()).map((e) => e.spec_id)).toEqual(['notes-cleanup', 'notes-cleanup']);
  });
});

describe('run status while waiting for a person', () => {
  it('waiting on a request, running again on the answer, and a replayed request never reopens the wait', async () => {
    const log = eventLog('run-waiting-0001');
    startRun(log);
    readExecutedRound(log, 0);
    const decision = { decision_type: 'tool_call' as const, tool_name: 'write_file', arguments: { path: 'notes/a.md', content: 'x' } };
    const requested = log.add({
      type: 'intervention.requested',
      round: 1,
      intervention: { id: 'intervention-0001', run_id: log.runId, round: 1, kind: 'escalation', decision, reason: 'Not sure this is wanted.', reason_codes: [], options: ['approve', 'reject', 'stop'], requested_at: '2026-01-05T09:00:10.000Z' },
    });
    await ingestEvents(db, log.events);
    expect((await db.runs.get(log.runId))?.status).toBe('waiting');

    const answered = log.add({ type: 'intervention.answered', round: 1, intervention_id: 'intervention-0001', answer: { action: 'approve' } });
    await ingestEvents(db, [answered]);
    expect((await db.runs.get(log.runId))?.status).toBe('running');
    await ingestEvents(db, [requested]);
    expect((await db.runs.get(log.runId))?.status).toBe('running');

    await ingestEvents(db, [finishRun(log, 'completed', 2, 'ok')]);
    expect((await db.runs.get(log.runId))?.status).toBe('completed');
  });
});
