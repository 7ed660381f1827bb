import type { StewardDb } from './db';

/**
 * Deletes runs from this page's database: what the host deleted from its journal (a person, or a
 * trace profile's retention) goes here too: the run rows and their events, in one transaction (the
 * host's learning examples and promotion figures forget them with its own deletion).
 * Returns how many of the runs this database held.
 */
export async function deleteRuns(db: StewardDb, runIds: readonly string[]): Promise<number> {
  const ids = [...new Set(runIds)];
  if (ids.length === 0) return 0;
  return db.transaction('rw', [db.runs, db.events, db.held_runs], async () => {
    const held = (await db.runs.bulkGet(ids)).filter((row) => row !== undefined).length;
    await db.runs.bulkDelete(ids);
    await db.events.where('run_id').anyOf(ids).delete();
    await db.held_runs.bulkDelete(ids);
    return held;
  });
}
