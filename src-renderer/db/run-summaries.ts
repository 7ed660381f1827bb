import type { RunRow } from '@shared/history/run-summary';
import { runWords } from '@shared/history/search-words';
import { plainSettings, type StewardDb } from './db';

/** One page of the host's runs list: rows newest first, `next` when more follow. */
export interface SummaryPage {
  runs: RunRow[];
  next?: { started_at: string; run_id: string } | undefined;
  total: number;
}

/**
 * Rows asked per request while a page lists the history. A page of 1,000 rows (2 MB) kept the main
 * thread 90-180 ms to read and check, so a run opened meanwhile waited about as long (issue 26,
 * bench/history-scale); 250 are 40-50 ms, for four times the requests (688 for a 10M-event history's
 * 172,000 runs: seconds, beside the minutes IndexedDB takes to put their rows).
 */
export const SUMMARY_PAGE = 250;

export interface SummaryProgress {
  listed: number;
  total: number;
}

/**
 * A page far behind its host (a fresh browser profile, a cleared site, a new port) first takes a
 * summary row for every run from the host's history database, before it indexes their events: the
 * Runs screen is then complete and right at once (every run listed, a finished run never shown as
 * running), however long the events take to follow. The host's row is the fold of every event of
 * the run, so it wins over what this page folded from fewer; `stored_events` stays this page's own
 * count (the events it holds), so the events that follow fold onto it exactly as they would have.
 */
export async function syncRunSummaries(
  db: StewardDb,
  fetchPage: (after: SummaryPage['next']) => Promise<SummaryPage>,
  progress: (p: SummaryProgress) => void,
  stillWanted: () => boolean = () => true,
): Promise<number> {
  let after: SummaryPage['next'];
  let listed = 0;
  for (;;) {
    const page = await fetchPage(after);
    if (!stillWanted()) return listed;
    await mergeSummaries(db, page.runs);
    listed += page.runs.length;
    progress({ listed, total: Math.max(page.total, listed) });
    if (!page.next || page.runs.length === 0) return listed;
    after = page.next;
  }
}

/**
 * Puts the host's rows, keeping the count of events this page holds for each. One transaction. A row
 * this page folded from more events than the host's row had when it was listed (another tab of this
 * origin storing a live run meanwhile) is the newer one and stays.
 *
 * A run listed only (the page holds none of its events) is put without its search words: the `*words`
 * index holds the runs this page holds, and text search asks the host's database for the rest
 * (screens/runs/host-search.ts). Indexing every run's ~80 words made a long listing slower the
 * longer it got (1.25 ms a row at first, 2.90 ms after 50,000 rows, against 0.41–0.49 ms without
 * them: bench/idb-listing.ts), and a 10M-event history's 172,000 runs had not finished listing after
 * 27 minutes.
 */
export async function mergeSummaries(db: StewardDb, rows: readonly RunRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.transaction('rw', db.runs, async () => {
    const mine = await db.runs.bulkGet(rows.map((row) => row.run_id));
    const newer = rows.flatMap((row, i) => {
      const held = mine[i];
      if (held && held.stored_events > row.stored_events) return [];
      const { words: _listed, ...listed } = row;
      const holds = held !== undefined && held.stored_events > 0;
      return [{ ...listed, stored_events: held?.stored_events ?? 0, ...(holds ? { words: runWords(row) } : {}) }];
    });
    await db.runs.bulkPut(newer);
  });
}

/** Per history (journal id): this page's rows were marked from the host's list of imported runs. */
const importedMarkedKey = (journal: string) => `imported-marked:${journal}`;

/**
 * Marks this page's rows of the runs that came from imported traces, from the host's list of them
 * (runs.list `imported: true`), once per history: a profile that indexed those runs before rows said
 * so learns it. Rows it does not hold are left (they are listed, marked, when it lists them). Later
 * imports are said by the frames that carry their events. Returns how many rows it marked.
 */
export async function markImportedRuns(db: StewardDb, journal: string, fetchPage: (after: SummaryPage['next']) => Promise<SummaryPage>, stillWanted: () => boolean = () => true): Promise<number> {
  if ((await plainSettings(db).get(importedMarkedKey(journal))) !== undefined) return 0;
  let after: SummaryPage['next'];
  let marked = 0;
  for (;;) {
    const page = await fetchPage(after);
    if (!stillWanted()) return marked;
    marked += await db.transaction('rw', db.runs, async () => {
      const held = await db.runs.bulkGet(page.runs.map((row) => row.run_id));
      const unmarked = held.flatMap((row) => (row && row.imported !== true ? [{ ...row, imported: true as const }] : []));
      if (unmarked.length > 0) await db.runs.bulkPut(unmarked);
      return unmarked.length;
    });
    if (!page.next || page.runs.length === 0) break;
    after = page.next;
  }
  await plainSettings(db).put({ key: importedMarkedKey(journal), value: true });
  return marked;
}
