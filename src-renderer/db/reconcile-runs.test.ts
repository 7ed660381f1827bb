import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StewardDb } from './db';
import { ingestEvents } from './ingest-events';
import { reconcileRuns } from './reconcile-runs';
import { eventLog, finishRun, startRun } from '../testing/event-fixtures';

let db: StewardDb;
beforeEach(async () => {
  db = new StewardDb(`steward-reconcile-test-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

function finishedRun(runId: string) {
  const log = eventLog(runId);
  startRun(log);
  finishRun(log, 'completed', 0);
  return log.events;
}

describe('reconciling with a journal whose tombstones were compacted', () => {
  it('deletes the runs the journal no longer has, with their events, and keeps the ones it has', async () => {
    const ids = ['run-recon-0001', 'run-recon-0002', 'run-recon-0003'];
    await ingestEvents(db, ids.flatMap(finishedRun));
    const asked: string[][] = [];
    const deleted = await reconcileRuns(db, async (runIds) => {
      asked.push(runIds);
      return runIds.filter((id) => id !== 'run-recon-0002');
    });
    expect(deleted).toBe(1);
    expect(asked).toEqual([ids]);
    expect(await db.runs.toCollection().primaryKeys()).toEqual(['run-recon-0001', 'run-recon-0003']);
    expect(await db.events.where('run_id').equals('run-recon-0002').count()).toBe(0);
  });

  it('asks about every run once, in batches of at most 1,000, and deletes nothing the journal confirms', async () => {
    const ids = Array.from({ length: 1_005 }, (_, i) => `run-recon-${String(i).padStart(5, '0')}`);
    await db.runs.bulkPut(ids.map((run_id) => ({ run_id, workflow_id: 'w', spec_name: 'w', status: 'completed' as const, started_at: '2026-01-01T00:00:00Z', rounds: 0, models: { student: 's', teacher: 't' }, supervision_enabled: false, stored_events: 0 })));
    const asked: number[] = [];
    expect(await reconcileRuns(db, async (runIds) => (asked.push(runIds.length), runIds))).toBe(0);
    expect(asked).toEqual([1_000, 5]);
    expect(await db.runs.count()).toBe(1_005);
  });
});
