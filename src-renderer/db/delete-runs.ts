import { plainSettings, type StewardDb } from './db';

/** The `settings` row a deletion stamps: what the host answers from its history (use-history-answer.ts) is asked again. */
export const RUNS_DELETED_KEY = 'runs-deleted';

/**
 * Deletes runs from this page's database: what the host deleted from its journal (a person, or a
 * trace profile's retention) goes here too: the run rows and their events, in one transaction (the
 * host's learning examples and promotion figures forget them with its own deletion).
 * Stamps `RUNS_DELETED_KEY`. Returns how many of the runs this database held.
 */
export async function deleteRuns(db: StewardDb, runIds: readonly string[]): Promise<number> {
  const ids = [...new Set(runIds)];
  if (ids.length === 0) return 0;
  return db.transaction('rw', [db.runs, db.events, db.held_runs, db.settings], async () => {
    const held = (await db.runs.bulkGet(ids)).filter((row) => row !== undefined).length;
    await db.runs.bulkDelete(ids);
    await db.events.where('run_id').anyOf(ids).delete();
    await db.held_runs.bulkDelete(ids);
    // Stamped even when it held none of them: the host's answers (a list, a card's figures) counted them.
    await plainSettings(db).put({ key: RUNS_DELETED_KEY, value: new Date().toISOString() });
    return held;
  });
}
