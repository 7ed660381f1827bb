import type { HostParams } from '@shared/contracts/host-api';
import type { RunRow } from '@shared/history/run-summary';
import type { RunFilter } from './run-filter';
import { dayRange, ordered, rowTest, wantedStatus } from './run-match';

/** What the Runs screen asks the host's `runs.list` for a text search: the contract's own params. */
export type HostRunsQuery = HostParams<'runs.list'>;
export type HostRunsPage = (query: HostRunsQuery) => Promise<{ runs: RunRow[]; next?: { started_at: string; run_id: string } | undefined }>;

/** Rows asked per request: a page of the list and some to spare for the filters the host does not apply. */
export const HOST_SEARCH_PAGE = 200;
/** Requests one search makes at most: filters only the page applies (supervision, provider) may leave few rows of many. */
export const HOST_SEARCH_REQUESTS = 10;

/**
 * The first `limit` runs of the host's history that match `f`, in the list's order (issue 26). The
 * host's database finds the text (the same words the page indexes, by prefix, or the run's id),
 * the status, the workflow and the days; the page tests the rest (supervision, provider) and asks
 * for more while they leave the page short. The page's own word index holds only the runs it holds
 * events of (db/run-summaries.ts): this is how a text search reaches every other run.
 */
export async function hostSearch(ask: HostRunsPage, f: RunFilter, limit: number): Promise<RunRow[]> {
  const status = wantedStatus(f);
  const text = f.text.trim();
  if (status === null || limit <= 0 || text === '') return [];
  const range = dayRange(f.fromDay, f.toDay);
  const test = rowTest(f, status, range, false);
  const found: RunRow[] = [];
  let after: HostRunsQuery['after'];
  for (let request = 0; request < HOST_SEARCH_REQUESTS; request += 1) {
    const page = await ask({
      text,
      ...(status !== undefined ? { status: [status] } : {}),
      ...(f.workflowId !== undefined ? { workflow: f.workflowId } : {}),
      ...(f.origin !== undefined ? { imported: f.origin === 'imported' } : {}),
      ...range,
      order: f.sort,
      limit: Math.min(1_000, Math.max(HOST_SEARCH_PAGE, limit - found.length)),
      ...(after ? { after } : {}),
    });
    for (const row of page.runs) if (test(row)) found.push(row);
    if (found.length >= limit || !page.next || page.runs.length === 0) break;
    after = page.next;
  }
  return found.slice(0, limit);
}

/**
 * One list from the page's own matches and the host's: a run once, as this page holds it where it
 * does (its row is live: a run that ended meanwhile shows as ended), tested again against the
 * filter but its text (the host found that), in the list's order, the first `limit`.
 */
export function mergeFound(local: readonly RunRow[], fromHost: readonly RunRow[], held: readonly (RunRow | undefined)[], f: RunFilter, limit: number): RunRow[] {
  const status = wantedStatus(f);
  if (status === null) return [];
  const test = rowTest(f, status, dayRange(f.fromDay, f.toDay), false);
  const byId = new Map<string, RunRow>();
  fromHost.forEach((row, i) => {
    const mine = held[i];
    const shown = mine ?? row;
    if (mine === undefined || test(mine)) byId.set(shown.run_id, shown);
  });
  for (const row of local) byId.set(row.run_id, row);
  return ordered([...byId.values()], f.sort).slice(0, limit);
}
