import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StewardDb } from './db';
import { ingestEvents } from './ingest-events';
import { deleteRuns, RUNS_DELETED_KEY } from './delete-runs';
import { blockedRound, eventLog, finishRun, startRun, writeReplacedRound } from '../testing/event-fixtures';

let db: StewardDb;
beforeEach(async () => {
  db = new StewardDb(`steward-delete-test-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

/** A run with two learning examples (a replaced write, a blocked one). */
function runWithExamples(runId: string) {
  const log = eventLog(runId);
  startRun(log);
  [writeReplacedRound, blockedRound].forEach((round, i) => round(log, i));
  finishRun(log, 'blocked', 2);
  return log.events;
}

describe('deleting runs in the page', () => {
  it('a deleted run loses its row and its events; other runs keep theirs', async () => {
    await ingestEvents(db, [...runWithExamples('run-delete-0001'), ...runWithExamples('run-delete-0002')]);
    const keptEvents = await db.events.where('run_id').equals('run-delete-0002').count();
    expect(keptEvents).toBeGreaterThan(0);

    expect(await deleteRuns(db, ['run-delete-0001', 'run-not-here'])).toBe(1);

    expect(await db.runs.get('run-delete-0001')).toBeUndefined();
    expect(await db.events.where('run_id').equals('run-delete-0001').count()).toBe(0);
    expect(await db.runs.get('run-delete-0002')).toBeDefined();
    expect(await db.events.where('run_id').equals('run-delete-0002').count()).toBe(keptEvents);
  });

  it('deleting nothing changes nothing; deleting runs it never held keeps its runs and stamps the deletion (the host’s answers are asked again)', async () => {
    await ingestEvents(db, runWithExamples('run-delete-0003'));
    expect(await deleteRuns(db, [])).toBe(0);
    expect(await db.table('settings').get(RUNS_DELETED_KEY)).toBeUndefined();
    expect(await deleteRuns(db, ['run-elsewhere'])).toBe(0);
    expect(await db.runs.count()).toBe(1);
    expect(await db.table('settings').get(RUNS_DELETED_KEY)).toMatchObject({ key: RUNS_DELETED_KEY, value: expect.any(String) });
  });
});
