import type { Table } from 'dexie';
import type { StewardDb } from './db';

/**
 * Deletes runs from this page's database: what the host deleted from its journal (a person, or a
 * trace profile's retention) goes here too. Every table keyed or indexed by `run_id` loses the
 * runs' rows (the run row, its events, its learning examples, and any per-run table added later),
 * in one transaction. Returns how many of the runs this database held.
 */
export async function deleteRuns(db: StewardDb, runIds: readonly string[]): Promise<number> {
  const ids = [...new Set(runIds)];
  if (ids.length === 0) return 0;
  const tables = db.tables.filter((table) => table.schema.primKey.name === 'run_id' || table.schema.idxByName['run_id'] !== undefined);
  return db.transaction('rw', tables, async () => {
    const held = (await db.runs.bulkGet(ids)).filter((row) => row !== undefined).length;
    for (const table of tables as Table<unknown, unknown>[]) {
      if (table.schema.primKey.name === 'run_id') await table.bulkDelete(ids);
      else await table.where('run_id').anyOf(ids).delete();
    }
    return held;
  });
}
