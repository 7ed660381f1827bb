import Dexie from 'dexie';
import type { RunRow, StewardDb } from '../../db/db';

/** How many of a workflow's latest runs its screen shows. */
export const RECENT_RUNS = 8;

/**
 * A workflow's latest runs, newest first: a walk of its start index that reads only the rows shown
 * (a workflow with 170,000 runs in a 10M-event history read them all to show eight: issue 26).
 */
export function recentRunsOf(db: StewardDb, workflowId: string): Promise<RunRow[]> {
  return db.runs
    .where('[workflow_id+started_at+run_id]')
    .between([workflowId, Dexie.minKey], [workflowId, Dexie.maxKey])
    .reverse()
    .limit(RECENT_RUNS)
    .toArray();
}
