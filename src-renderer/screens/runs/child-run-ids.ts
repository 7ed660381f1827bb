import type { StewardDb } from '../../db/db';

/**
 * The child runs of these runs that are not among them (issue 29), grandchildren too: a child run's id
 * is its parent's, a colon, and the invocation that ran it, so they are this page's runs whose id starts
 * with the parent's and `:` (the runs table's primary key). Deleting a run deletes them with it; an
 * export offers them.
 */
export async function childRunIdsOf(db: StewardDb, runIds: readonly string[]): Promise<string[]> {
  const chosen = new Set(runIds);
  const found = new Set<string>();
  for (const id of runIds) {
    for (const child of await db.runs.where('run_id').startsWith(`${id}:`).primaryKeys()) if (!chosen.has(child)) found.add(child);
  }
  return [...found];
}
