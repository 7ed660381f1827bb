import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LearningExample } from '@shared/contracts/learning-export';
import type { ChatMessage } from '@shared/contracts/model';
import type { RunEvent } from '@shared/contracts/events';
import { StewardDb, type LearningExampleRow, type RunRow } from './db';
import { backfillLearningExamples } from './learning-examples';
import { ingestEvents } from './ingest-events';
import { wholeExamples } from './example-prompts';
import { blockedRound, eventLog, finishRun, readExecutedRound, startRun, writeReplacedRound } from '../testing/event-fixtures';
import { referencedRun } from '../testing/learning-fixtures';
import { rowsReadDb, type SeenRequest } from '../testing/rows-read';
import { runRow } from '../testing/run-row';

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
    for (const example of await wholeExamples(db, stored)) {
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

  it('a run listed from the host’s summaries (a fresh profile catching up) takes its events without looking for earlier examples of it', async () => {
    const log = runWithExamples('run-learning-0003');
    await db.runs.put(runRow('run-learning-0003', 'notes-cleanup', 0));
    const requests: SeenRequest[] = [];
    const counted = rowsReadDb<LearningExampleRow>(db.name, 'learning_examples', () => undefined, (r) => requests.push(r));
    await counted.open();
    await ingestEvents(counted, log.events);
    counted.close();
    expect(requests.filter((r) => r.kind !== 'get')).toEqual([]);
    expect((await db.learning_examples.toArray()).map((e) => e.spec_id)).toEqual(['notes-cleanup', 'notes-cleanup']);
  });
});

describe('a dry run teaches nothing, even from a journal written before dry runs stopped recording examples', () => {
  const dryRun = (runId: string) => runWithExamples(runId).events.map((e) => (e.type === 'run.started' ? { ...e, dry_run: true } : e));

  it('its examples are never stored, its start arriving before them, with them, or after them', async () => {
    const events = dryRun('run-dry-0001');
    expect(events.filter((e) => e.type === 'learning.example')).toHaveLength(2);
    for (const e of events) await ingestEvents(db, [e]);
    expect(await db.learning_examples.count()).toBe(0);
    await ingestEvents(db, [...events].reverse());
    expect(await db.learning_examples.count()).toBe(0);

    const late = dryRun('run-dry-0002');
    await ingestEvents(db, late.filter((e) => e.type !== 'run.started'));
    await ingestEvents(db, late.filter((e) => e.type === 'run.started'));
    expect(await db.learning_examples.count()).toBe(0);
  });

  it('a real run stored alongside keeps its examples', async () => {
    await ingestEvents(db, [...dryRun('run-dry-0003'), ...runWithExamples('run-real-0003').events]);
    expect((await db.learning_examples.toArray()).map((e) => e.run_id)).toEqual(['run-real-0003', 'run-real-0003']);
  });

  it('the v1 → v2 upgrade distils none from a stored dry run', async () => {
    await db.events.bulkPut([...dryRun('run-dry-0004'), ...runWithExamples('run-real-0004').events]);
    await backfillLearningExamples(db.table<RunEvent, string>('events'), db.table<RunRow, string>('runs'), db.table<LearningExampleRow, string>('learning_examples'));
    expect((await db.learning_examples.toArray()).map((e) => e.run_id)).toEqual(['run-real-0004', 'run-real-0004']);
  });
});

/** A run whose learning examples store their prompts as the engine does: each one only what is new since the previous example's. */
function runWithReferencedPrompts(runId: string, rounds: number) {
  // The SCS brief in the system prompt changes at round 3: the history after it is still referenced.
  const { log, prompts } = referencedRun(runId, [{ rounds, kinds: ['demonstration', 'shadow'], systemChangeAt: 3 }]);
  return { log, prompts: [...prompts.values()] };
}

describe('learning examples whose prompt references an earlier example', () => {
  const wholePrompts = async (database: StewardDb) => (await wholeExamples(database, await database.learning_examples.orderBy('id').toArray())).map((e) => e.context);
  const expected = (prompts: ChatMessage[][]) => prompts;

  it('is stored by reference, as its event holds it, never with the whole prompt copied in', async () => {
    const { log } = runWithReferencedPrompts('run-ref-0000', 6);
    await ingestEvents(db, log.events);
    const stored = await db.learning_examples.orderBy('id').toArray();
    const events = log.events.filter((e) => e.type === 'learning.example');
    expect(stored.map((r) => [r.context, r.context_ref, r.context_head])).toEqual(events.map((e) => [e.context, e.context_ref, e.context_head]));
  });

  it('arriving one event at a time, as live, every example gets its whole prompt back', async () => {
    const { log, prompts } = runWithReferencedPrompts('run-ref-0001', 6);
    expect(log.events.filter((e) => e.type === 'learning.example' && e.context_ref !== undefined)).toHaveLength(11);
    for (const e of log.events) await ingestEvents(db, [e]);
    expect(await wholePrompts(db)).toEqual(expected(prompts));
  });

  it('in one batch in any order (a backfill, a replay), every example gets its whole prompt back', async () => {
    const { log, prompts } = runWithReferencedPrompts('run-ref-0002', 6);
    await ingestEvents(db, [...log.events].reverse());
    expect(await wholePrompts(db)).toEqual(expected(prompts));
  });

  it('after a reload mid-run (nothing in memory), the rest of the run rebuilds from the examples already stored', async () => {
    const { log, prompts } = runWithReferencedPrompts('run-ref-0003', 6);
    const half = Math.floor(log.events.length / 2);
    await ingestEvents(db, log.events.slice(0, half));
    const reloaded = new StewardDb(db.name);
    await reloaded.open();
    try {
      for (const e of log.events.slice(half)) await ingestEvents(reloaded, [e]);
      expect(await wholePrompts(reloaded)).toEqual(expected(prompts));
    } finally {
      reloaded.close();
    }
  });

  it('the v1 → v2 upgrade distils whole prompts from stored referenced events', async () => {
    const { log, prompts } = runWithReferencedPrompts('run-ref-0004', 4);
    await db.events.bulkPut(log.events);
    await backfillLearningExamples(db.table<RunEvent, string>('events'), db.table<RunRow, string>('runs'), db.table<LearningExampleRow, string>('learning_examples'));
    expect(await wholePrompts(db)).toEqual(expected(prompts));
  });

  it('an example whose referenced example never arrived gets no prompt (so it is not exported), never a partial one', async () => {
    const { log } = runWithReferencedPrompts('run-ref-0005', 3);
    const first = log.events.find((e) => e.type === 'learning.example');
    await ingestEvents(db, log.events.filter((e) => e !== first));
    expect((await wholePrompts(db)).map((c) => c.length)).toEqual([0, 0, 0, 0, 0]);
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
