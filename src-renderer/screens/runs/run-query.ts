import Dexie from 'dexie';
import type { RunStatus } from '@shared/contracts/events';
import type { RunRow, StewardDb } from '../../db/db';
import { searchWords } from '@shared/history/search-words';
import type { RunFilter } from './run-filter';
import { dayRange, ordered, rowTest, runIdPrefix, wantedStatus } from './run-match';

/** Rows fetched per page: the list asks for the next page as its end scrolls into view. */
export const RUN_PAGE = 100;

/** Rows read per step while a page fills: small first (a broad filter fills it at once), then larger. */
const FIRST_CHUNK = RUN_PAGE;
const MAX_CHUNK = 500;

type IndexKey = unknown[];

/** How a text query chooses between the word index and the date index (the defaults are what the bench measured). */
export interface SearchTuning {
  /** Index entries read per query word: a word with fewer names every run that has it; one with more is common. */
  wordEntries: number;
  /** Runs read by id at once when the rare words leave at most this many (reading a row by id costs about as much as scanning one). */
  directRows: number;
  /** Rows of the date index tried first when no word is that rare: common words usually fill a page within them. */
  scanBudget: number;
}
export const SEARCH_TUNING: SearchTuning = { wordEntries: 400, directRows: 300, scanBudget: 500 };

/** Each word's runs from the `*words` index, at most `entries` index entries each (a prefix may match several words of a run). */
function wordRuns(db: StewardDb, words: readonly string[], entries = Infinity): Promise<string[][]> {
  return db.transaction('r', db.runs, () =>
    Promise.all(
      words.map((w) => {
        const runs = db.runs.where('words').startsWith(w);
        return (Number.isFinite(entries) ? runs.limit(entries) : runs).primaryKeys();
      }),
    ),
  );
}

/** The runs in every list, smallest list first. */
function intersect(lists: readonly string[][]): Set<string> {
  const [first = [], ...rest] = [...lists].sort((a, b) => a.length - b.length);
  const others = rest.map((keys) => new Set(keys));
  return new Set(first.filter((id) => others.every((s) => s.has(id))));
}

/** The first page among runs known by id: each read, tested and sorted. */
async function pageOf(db: StewardDb, ids: ReadonlySet<string>, test: (r: RunRow) => boolean, f: RunFilter, limit: number): Promise<RunRow[]> {
  const rows = await db.runs.bulkGet([...ids]);
  return ordered(rows.filter((r): r is RunRow => r !== undefined && test(r)), f.sort).slice(0, limit);
}

/**
 * Reads the most selective index in the chosen order, testing each row, until the page is full, the range ends or
 * `maxRows` were read. `done` is false only when it stopped at `maxRows` with the page not full.
 */
async function scanIndex(db: StewardDb, f: RunFilter, status: RunStatus | undefined, range: { from?: string; to?: string }, test: (r: RunRow) => boolean, limit: number, maxRows: number): Promise<{ page: RunRow[]; done: boolean }> {
  const prefix: IndexKey = status !== undefined ? [status] : f.workflowId !== undefined ? [f.workflowId] : [];
  const index = status !== undefined ? '[status+started_at+run_id]' : f.workflowId !== undefined ? '[workflow_id+started_at+run_id]' : '[started_at+run_id]';
  const keyOf = (r: RunRow): IndexKey => [...prefix, r.started_at, r.run_id];
  // [...prefix, day] sorts before every key of that day and after every key of the days before.
  let lo: unknown = range.from !== undefined ? [...prefix, range.from] : prefix.length > 0 ? [...prefix, Dexie.minKey] : Dexie.minKey;
  let hi: unknown = range.to !== undefined ? [...prefix, range.to] : prefix.length > 0 ? [...prefix, Dexie.maxKey] : Dexie.maxKey;
  let loOpen = false;
  let hiOpen = true;
  const page: RunRow[] = [];
  let read = 0;
  for (let chunk = Math.min(FIRST_CHUNK, maxRows); ; chunk = Math.min(chunk * 2, MAX_CHUNK, maxRows - read)) {
    const between = db.runs.where(index).between(lo, hi, !loOpen, !hiOpen);
    const rows = await (f.sort === 'newest' ? between.reverse() : between).limit(chunk).toArray();
    read += rows.length;
    for (const r of rows) if (test(r) && page.push(r) >= limit) break;
    if (page.length >= limit || rows.length < chunk) return { page, done: true };
    if (read >= maxRows) return { page, done: false };
    const last = keyOf(rows[rows.length - 1]!);
    if (f.sort === 'newest') [hi, hiOpen] = [last, true];
    else [lo, loOpen] = [last, true];
  }
}

/**
 * The first `limit` runs matching `f`, in the chosen order. The most selective index drives the read
 * ([status+started_at+run_id], [workflow_id+started_at+run_id], else [started_at+run_id]), bounded by the date range;
 * the rest (supervision, provider, text) is tested per row. Rows are read in chunks, each continuing after the last key
 * read (the run id makes every key unique), and reading stops as soon as the page is full.
 *
 * A text query asks the `*words` index first (a few keys per word, no rows): when its rare words leave few runs, only
 * those are read. Otherwise the index scan is tried for a budget of rows (common words fill a page at once); when it
 * does not fill, the words' whole run lists are intersected and only the runs in all of them are read (see
 * docs/benchmarks.md). Any tuning gives the same page: every row read is tested against the whole filter.
 */
export async function queryRuns(db: StewardDb, f: RunFilter, limit: number, tuning: SearchTuning = SEARCH_TUNING): Promise<RunRow[]> {
  const status = wantedStatus(f);
  if (status === null || limit <= 0) return [];
  const range = dayRange(f.fromDay, f.toDay);
  const test = rowTest(f, status, range);
  const words = searchWords(f.text);
  if (words.length === 0) return (await scanIndex(db, f, status, range, test, limit, Infinity)).page;
  const idPrefix = runIdPrefix(f.text);
  if (idPrefix !== undefined) {
    // A run id (or its start): the runs whose id starts so, by the primary key, and those whose words match.
    const byId = await db.runs.where('run_id').startsWith(idPrefix).primaryKeys();
    return pageOf(db, new Set([...byId, ...intersect(await wordRuns(db, words))]), test, f, limit);
  }

  const firstKeys = await wordRuns(db, words, tuning.wordEntries);
  const whole = firstKeys.filter((keys) => keys.length < tuning.wordEntries);
  const rare = whole.length > 0 ? intersect(whole) : undefined;
  if (rare !== undefined && rare.size <= tuning.directRows) return pageOf(db, rare, test, f, limit);
  const tried = await scanIndex(db, f, status, range, test, limit, tuning.scanBudget);
  if (tried.done) return tried.page;
  if (rare !== undefined) return pageOf(db, rare, test, f, limit);
  // Every word is common, yet they rarely meet: their runs' ids are cheap to read next to the rows themselves.
  const all = intersect(await wordRuns(db, words));
  if (all.size <= tuning.wordEntries) return pageOf(db, all, test, f, limit);
  return (await scanIndex(db, f, status, range, (r) => all.has(r.run_id) && test(r), limit, Infinity)).page;
}

/** The same answer from every row in memory: the baseline the bench and the tests compare against. */
export function scanRuns(all: readonly RunRow[], f: RunFilter): RunRow[] {
  const status = wantedStatus(f);
  if (status === null) return [];
  return ordered(all.filter(rowTest(f, status, dayRange(f.fromDay, f.toDay))), f.sort);
}
