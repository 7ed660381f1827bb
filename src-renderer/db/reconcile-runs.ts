import type { StewardDb } from './db';
import { deleteRuns } from './delete-runs';

/** Run ids asked about per request (the host's limit for runs.known). */
export const RECONCILE_BATCH = 1_000;

/**
 * The host's journal compacted tombstones this page may not have been told of (it was offline, or another browser
 * profile deleted runs meanwhile): every run this database holds is checked against the journal, a batch at a time,
 * and those it no longer has are deleted here too. So a run deleted anywhere never comes back, however long the
 * page was away. Returns how many runs were deleted.
 */
export async function reconcileRuns(db: StewardDb, known: (runIds: string[]) => Promise<readonly string[]>): Promise<number> {
  let deleted = 0;
  let after: string | undefined;
  for (;;) {
    const batch = (await (after === undefined ? db.runs.orderBy('run_id') : db.runs.where('run_id').above(after)).limit(RECONCILE_BATCH).primaryKeys()) as string[];
    if (batch.length === 0) return deleted;
    after = batch.at(-1);
    const held = new Set(await known(batch));
    const gone = batch.filter((id) => !held.has(id));
    if (gone.length > 0) deleted += await deleteRuns(db, gone);
  }
}
