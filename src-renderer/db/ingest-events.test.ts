import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StewardDb, runEvents } from './db';
import { ingestEvents } from './ingest-events';
import { blockedRound, eventLog, finishRun, readExecutedRound, startRun, writeReplacedRound } from '../testing/event-fixtures';

let db: StewardDb;
let dbCount = 0;

beforeEach(async () => {
  // A fresh database per test: no test depends on another's leftovers.
  db = new StewardDb(`steward-ingest-test-${++dbCount}-${Math.random().toString(36).slice(2)}`);
  await db.open();
});

afterEach(async () => {
  await db.delete();
});

function fullRun(runId: string) {
  const log = eventLog(runId);
  startRun(log);
  readExecutedRound(log, 0);
  writeReplacedRound(log, 1);
  finishRun(log, 'completed', 2, 'Summary written to notes/summary.md');
  return log;
}

describe('ingestEvents', () => {
  it('stores each event once when the same batch is replayed', async () => {
    const log = fullRun('run-replay-0001');
    const first = await ingestEvents(db, log.events);
    const second = await ingestEvents(db, log.events);

    expect(first.ids).toHaveLength(log.events.length);
    expect(first.fresh).toBe(log.events.length);
    expect(second.fresh).toBe(0);
    expect(await db.events.count()).toBe(log.events.length);
    const stored = await runEvents(db, log.runId);
    expect(stored.map((e) => e.seq)).toEqual(log.events.map((e) => e.seq));
    const run = await db.runs.get(log.runId);
    expect(run?.stored_events).toBe(log.events.length);
  });

  it('stores a run split across two overlapping batches exactly once, in order', async () => {
    const log = fullRun('run-overlap-001');
    const cut = Math.floor(log.events.length / 2);
    await ingestEvents(db, log.events.slice(0, cut + 3));
    const second = await ingestEvents(db, log.events.slice(cut));

    expect(second.ids).toHaveLength(log.events.length - cut);
    expect(second.fresh).toBe(log.events.length - cut - 3);
    const stored = await runEvents(db, log.runId);
    expect(stored.map((e) => e.id)).toEqual(log.events.map((e) => e.id));
    const run = await db.runs.get(log.runId);
    expect(run?.stored_events).toBe(log.events.length);
    expect(run?.event_count).toBe(log.events.length);
  });

  it('summarises a finished run from its events', async () => {
    const log = fullRun('run-summary-01');
    await ingestEvents(db, log.events);
    const run = await db.runs.get(log.runId);
    expect(run).toMatchObject({
      run_id: log.runId,
      workflow_id: 'notes-cleanup',
      spec_name: 'Tidy the notes folder',
      task: 'Summarise notes/todo.md into notes/summary.md',
      status: 'completed',
      rounds: 2,
      output: 'Summary written to notes/summary.md',
      models: { student: 'replay', teacher: 'replay' },
      supervision_enabled: true,
      event_count: log.events.length,
      started_at: log.events[0]?.ts,
      finished_at: log.events.at(-1)?.ts,
    });
  });

  it('counts rounds from round.completed while the run is still going', async () => {
    const log = eventLog('run-inflight-01');
    startRun(log, { supervision: false });
    readExecutedRound(log, 0);
    readExecutedRound(log, 1, { complete: false });
    await ingestEvents(db, log.events);
    const run = await db.runs.get(log.runId);
    expect(run).toMatchObject({ status: 'running', rounds: 1, supervision_enabled: false });
    expect(run?.finished_at).toBeUndefined();
  });

  it('never downgrades a finished run back to running when earlier events are replayed', async () => {
    const log = eventLog('run-nodowngrade');
    startRun(log);
    blockedRound(log, 0);
    finishRun(log, 'blocked', 1);
    await ingestEvents(db, log.events);
    // The host re-pushes the opening events (e.g. after a reconnect before their ack landed).
    await ingestEvents(db, log.events.slice(0, 3));
    const run = await db.runs.get(log.runId);
    expect(run?.status).toBe('blocked');
    expect(run?.rounds).toBe(1);
    expect(run?.stored_events).toBe(log.events.length);
  });

  it('keeps a run whose finish arrives before its start consistent once both are in', async () => {
    const log = fullRun('run-outoforder');
    const finished = log.events.slice(-1);
    await ingestEvents(db, finished);
    expect((await db.runs.get(log.runId))?.status).toBe('completed');
    await ingestEvents(db, log.events.slice(0, -1));
    const run = await db.runs.get(log.runId);
    expect(run).toMatchObject({ status: 'completed', spec_name: 'Tidy the notes folder', rounds: 2, stored_events: log.events.length });
  });

  it('keeps runs apart when one batch carries events of several runs', async () => {
    const a = fullRun('run-multi-aaaa');
    const b = eventLog('run-multi-bbbb');
    startRun(b);
    readExecutedRound(b, 0, { complete: false });
    const mixed = [...a.events, ...b.events].sort((x, y) => x.seq - y.seq);
    await ingestEvents(db, mixed);
    expect(await db.runs.count()).toBe(2);
    expect((await db.runs.get(a.runId))?.status).toBe('completed');
    expect((await db.runs.get(b.runId))?.status).toBe('running');
    expect(await db.events.where('run_id').equals(b.runId).count()).toBe(b.events.length);
  });
});
