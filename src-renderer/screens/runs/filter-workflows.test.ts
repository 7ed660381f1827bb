import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StewardDb, type RunRow } from '../../db/db';
import { rowsReadDb } from '../../testing/rows-read';
import { runRow } from '../../testing/run-row';
import { workflowsInHistory } from './filter-workflows';

const row = (run_id: string, workflow_id: string, spec_name: string, minute: number): RunRow => runRow(run_id, workflow_id, minute, { spec_name });

let db: StewardDb;
beforeEach(async () => {
  db = new StewardDb(`steward-filter-workflows-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

describe('the Runs filter’s workflows from the history', () => {
  it('are every workflow runs were of, once, with a name a run had; a run of no workflow gives none', async () => {
    await db.runs.bulkPut([
      ...Array.from({ length: 400 }, (_, i) => row(`notes-${i}`, 'notes-assistant', 'Notes assistant', i)),
      ...Array.from({ length: 30 }, (_, i) => row(`batch-${i}`, 'batch-fanout', 'Batch fan-out', 400 + i)),
      row('gone-1', 'deleted-flow', 'A workflow since deleted', 500),
      row('loose-1', '', 'No workflow', 501),
    ]);
    expect(await workflowsInHistory(db)).toEqual([
      { id: 'batch-fanout', name: 'Batch fan-out' },
      { id: 'deleted-flow', name: 'A workflow since deleted' },
      { id: 'notes-assistant', name: 'Notes assistant' },
    ]);
  });

  it('reads one row a workflow, however many runs each has, and opens no unique-key cursor (Chromium walks every run for one; this is asked again after every write)', async () => {
    await db.runs.bulkPut([...Array.from({ length: 2_000 }, (_, i) => row(`a-${i}`, 'a', 'A', i)), ...Array.from({ length: 2_000 }, (_, i) => row(`b-${i}`, 'b', 'B', i))]);
    let read = 0;
    // What reaches IndexedDB: each query's limit, and every cursor opened on the runs.
    const limits: Array<number | undefined> = [];
    const cursors: Array<{ unique: boolean }> = [];
    const counted = rowsReadDb<RunRow>(
      db.name,
      'runs',
      () => (read += 1),
      (request) => {
        if (request.kind === 'query') limits.push(request.limit);
        if (request.kind === 'cursor') cursors.push({ unique: request.unique });
      },
    );
    await counted.open();
    try {
      expect((await workflowsInHistory(counted)).map((w) => w.id)).toEqual(['a', 'b']);
      expect(read).toBe(2);
      expect(cursors.filter((c) => c.unique)).toEqual([]);
      // One seek a workflow, and one that finds none after the last.
      expect(limits).toEqual([1, 1, 1]);
    } finally {
      counted.close();
    }
  });
});
