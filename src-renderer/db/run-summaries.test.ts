import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunRow } from '@shared/history/run-summary';
import { StewardDb } from './db';
import { markImportedRuns, mergeSummaries, syncRunSummaries } from './run-summaries';

const row = (run_id: string, over: Partial<RunRow> = {}): RunRow => ({
  run_id,
  workflow_id: 'notes',
  spec_name: 'Notes assistant',
  status: 'completed',
  started_at: '2026-12-01T10:00:00.000Z',
  rounds: 3,
  models: { student: 's', teacher: 't' },
  supervision_enabled: true,
  stored_events: 52,
  event_count: 52,
  ...over,
});

let db: StewardDb;
beforeEach(async () => {
  db = new StewardDb(`steward-summaries-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

describe('run summaries from the host', () => {
  it('rows this profile indexed before rows said "imported" are marked from the host\'s list of imported runs, page by page, once per history', async () => {
    await db.runs.bulkPut([row('run-from-file-1'), row('run-from-file-2'), row('run-ran-here')]);
    const asked: unknown[] = [];
    const pages = {
      first: { runs: [row('run-from-file-1', { imported: true }), row('run-not-held', { imported: true })], next: { started_at: '2026-12-01T10:00:00.000Z', run_id: 'run-not-held' }, total: 3 },
      second: { runs: [row('run-from-file-2', { imported: true })], total: 3 },
    };
    const fetchPage = async (after: { started_at: string; run_id: string } | undefined) => {
      asked.push(after);
      return after ? pages.second : pages.first;
    };
    expect(await markImportedRuns(db, 'journal-a', fetchPage)).toBe(2);
    expect((await db.runs.toArray()).map((r) => [r.run_id, r.imported === true])).toEqual([
      ['run-from-file-1', true],
      ['run-from-file-2', true],
      ['run-ran-here', false],
    ]);
    expect(asked).toEqual([undefined, { started_at: '2026-12-01T10:00:00.000Z', run_id: 'run-not-held' }]);
    // Once per history: the same journal is not asked again; another is.
    expect(await markImportedRuns(db, 'journal-a', fetchPage)).toBe(0);
    expect(asked).toHaveLength(2);
    await markImportedRuns(db, 'journal-b', fetchPage);
    expect(asked).toHaveLength(4);
  });

  it('the host\'s row replaces what this page folded from fewer events, keeping the count of events the page holds', async () => {
    await db.runs.put(row('run-stale', { status: 'running', stored_events: 7, event_count: undefined }));
    await mergeSummaries(db, [row('run-stale'), row('run-new')]);
    expect(await db.runs.get('run-stale')).toMatchObject({ status: 'completed', stored_events: 7, event_count: 52 });
    expect(await db.runs.get('run-new')).toMatchObject({ status: 'completed', stored_events: 0 });
    // A run listed only is not in this page's word index (text search asks the host for it); one the page holds events of is.
    expect((await db.runs.get('run-new'))?.words).toBeUndefined();
    expect(await db.runs.where('words').startsWith('notes').primaryKeys()).toEqual(['run-stale']);
  });

  it('a row this page folded from more events than the host\'s listed row (another tab, live) stays', async () => {
    await db.runs.put(row('run-live', { status: 'completed', stored_events: 60 }));
    await mergeSummaries(db, [row('run-live', { status: 'running', stored_events: 40 })]);
    expect(await db.runs.get('run-live')).toMatchObject({ status: 'completed', stored_events: 60 });
  });

  it('pages through the host\'s list until it ends, saying how far it is', async () => {
    const all = Array.from({ length: 5 }, (_, i) => row(`run-${i}`));
    const progress: number[] = [];
    const listed = await syncRunSummaries(
      db,
      async (after) => {
        const start = after ? all.findIndex((r) => r.run_id === after.run_id) + 1 : 0;
        const runs = all.slice(start, start + 2);
        const last = runs.at(-1);
        return { runs, total: all.length, ...(start + 2 < all.length && last ? { next: { started_at: last.started_at, run_id: last.run_id } } : {}) };
      },
      (p) => progress.push(p.listed),
    );
    expect(listed).toBe(5);
    expect(progress).toEqual([2, 4, 5]);
    expect(await db.runs.count()).toBe(5);
  });
});
