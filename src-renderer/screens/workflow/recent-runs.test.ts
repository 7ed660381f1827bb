import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StewardDb, type RunRow } from '../../db/db';
import { rowsReadDb } from '../../testing/rows-read';
import { runRow } from '../../testing/run-row';
import { RECENT_RUNS, recentRunsOf } from './recent-runs';

const row = (run_id: string, workflow_id: string, minute: number): RunRow => runRow(run_id, workflow_id, minute);

let db: StewardDb;
beforeEach(async () => {
  db = new StewardDb(`steward-recent-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

describe('a workflow page\'s recent runs', () => {
  it('are the workflow\'s latest, newest first, read by its start index: the rows shown and no more, however many it has', async () => {
    // 300 runs of notes, 50 of another workflow interleaved (some later than every notes run).
    await db.runs.bulkPut([...Array.from({ length: 300 }, (_, i) => row(`notes-${String(i).padStart(3, '0')}`, 'notes', i)), ...Array.from({ length: 50 }, (_, i) => row(`other-${i}`, 'other', 300 + i))]);
    let read = 0;
    const counted = rowsReadDb<RunRow>(db.name, 'runs', () => (read += 1));
    await counted.open();
    try {
      const recent = await recentRunsOf(counted, 'notes');
      expect(recent.map((r) => r.run_id)).toEqual(Array.from({ length: RECENT_RUNS }, (_, i) => `notes-${String(299 - i).padStart(3, '0')}`));
      expect(read).toBe(RECENT_RUNS);
    } finally {
      counted.close();
    }
    expect(await recentRunsOf(db, 'nothing-ran')).toEqual([]);
  });
});
