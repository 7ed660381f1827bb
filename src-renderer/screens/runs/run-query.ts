import Dexie from 'dexie';
import type { RunStatus } from '@shared/contracts/events';
import type { RunRow, StewardDb } from '../../db/db';
import { matchesWords, runWords, searchWords } from '../../db/search-words';
import { providerOfLabel, type RunFilter } from './run-filter';

/** Rows fetched per page: the list asks for the next page as its end scrolls into view. */
export const RUN_PAGE = 100;

/** A day's bounds as ISO instants: `from` the local midnight starting `fromDay`, `to` the one ending `toDay` (exclusive). */
export function dayRange(fromDay?: string, toDay?: string): { from?: string; to?: string } {
  const midnight = (day: string, plusDays: number) => {
    const [y, m, d] = day.split('-').map(Number) as [number, number, number];
    return new Date(y, m - 1, d + plusDays).toISOString();
  };
  return { ...(fromDay ? { from: midnight(fromDay, 0) } : {}), ...(toDay ? { to: midnight(toDay, 1) } : {}) };
}

/** The one status a filter allows, `null` when it allows none (waiting for you + another status). */
function wantedStatus(f: RunFilter): RunStatus | undefined | null {
  if (!f.waitingForYou) return f.status;
  return f.status === undefined || f.status === 'waiting' ? 'waiting' : null;
}

/** Everything but the index range: applied row by row on the index cursor. */
function rowTest(f: RunFilter, status: RunStatus | undefined, range: { from?: string; to?: string }): (r: RunRow) => boolean {
  const words = searchWords(f.text);
  return (r) =>
    (status === undefined || r.status === status) &&
    (f.workflowId === undefined || r.workflow_id === f.workflowId) &&
    (f.supervision === undefined || r.supervision_enabled === (f.supervision === 'supervised')) &&
    (f.provider === undefined || providerOfLabel(r.models.student) === f.provider || providerOfLabel(r.models.teacher) === f.provider) &&
    (range.from === undefined || r.started_at >= range.from) &&
    (range.to === undefined || r.started_at < range.to) &&
    // The row's indexed words (masked values are stored masked, so they stay masked here); every query word starts one.
    (words.length === 0 || matchesWords(r.words ?? runWords(r), words));
}

/** Rows read per step while a page fills: small first (a broad filter fills it at once), then larger. */
const FIRST_CHUNK = RUN_PAGE;
const MAX_CHUNK = 500;

type IndexKey = unknown[];

/**
 * Index entries read per query word. A word with fewer entries names every run that has it; a word with more is
 * common, and a page of its runs fills within the first rows of the date index anyway.
 */
const WORD_ENTRIES = 1000;

/**
 * The runs that can match a text query, from the `*words` index: the intersection of the runs of every query word
 * rare enough to be read whole (a prefix may match several words of one run, hence the set). Undefined when every
 * word is common: then the date index is read with the words tested per row.
 */
async function wordCandidates(db: StewardDb, words: readonly string[]): Promise<Set<string> | undefined> {
  const lists = await db.transaction('r', db.runs, () => Promise.all(words.map((w) => db.runs.where('words').startsWith(w).limit(WORD_ENTRIES).primaryKeys())));
  const whole = lists.filter((keys) => keys.length < WORD_ENTRIES).sort((a, b) => a.length - b.length);
  const [first, ...rest] = whole;
  if (first === undefined) return undefined;
  const others = rest.map((keys) => new Set(keys));
  return new Set(first.filter((id) => others.every((s) => s.has(id))));
}

const byStart = (a: RunRow, b: RunRow) => (a.started_at < b.started_at ? -1 : a.started_at > b.started_at ? 1 : a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0);

/** Rows in the list's order: by start, then run id (the key order of the indexes the list pages through). */
function ordered(rows: RunRow[], sort: RunFilter['sort']): RunRow[] {
  const asc = rows.sort(byStart);
  return sort === 'newest' ? asc.reverse() : asc;
}

/**
 * The first `limit` runs matching `f`, in the chosen order. The most selective index drives the read
 * ([status+started_at+run_id], [workflow_id+started_at+run_id], else [started_at+run_id]), bounded by the date range;
 * the rest (supervision, text) is tested per row. Rows are read in chunks, each continuing after the last key read
 * (the run id makes every key unique), and reading stops as soon as the page is full. A text query first asks the
 * `*words` index for the runs having a word that starts with each query word: when one is rare, only its runs are
 * read, tested and sorted; when all are common, the scan above tests them per row (see docs/benchmarks.md).
 */
export async function queryRuns(db: StewardDb, f: RunFilter, limit: number): Promise<RunRow[]> {
  const status = wantedStatus(f);
  if (status === null || limit <= 0) return [];
  const range = dayRange(f.fromDay, f.toDay);
  const test = rowTest(f, status, range);
  const words = searchWords(f.text);
  const candidates = words.length > 0 ? await wordCandidates(db, words) : undefined;
  if (candidates !== undefined) {
    const rows = await db.runs.bulkGet([...candidates]);
    return ordered(rows.filter((r): r is RunRow => r !== undefined && test(r)), f.sort).slice(0, limit);
  }
  const prefix: IndexKey = status !== undefined ? [status] : f.workflowId !== undefined ? [f.workflowId] : [];
  const index = status !== undefined ? '[status+started_at+run_id]' : f.workflowId !== undefined ? '[workflow_id+started_at+run_id]' : '[started_at+run_id]';
  const keyOf = (r: RunRow): IndexKey => [...prefix, r.started_at, r.run_id];
  // [...prefix, day] sorts before every key of that day and after every key of the days before.
  let lo: unknown = range.from !== undefined ? [...prefix, range.from] : prefix.length > 0 ? [...prefix, Dexie.minKey] : Dexie.minKey;
  let hi: unknown = range.to !== undefined ? [...prefix, range.to] : prefix.length > 0 ? [...prefix, Dexie.maxKey] : Dexie.maxKey;
  let loOpen = false;
  let hiOpen = true;
  const page: RunRow[] = [];
  for (let chunk = FIRST_CHUNK; page.length < limit; chunk = Math.min(chunk * 2, MAX_CHUNK)) {
    const between = db.runs.where(index).between(lo, hi, !loOpen, !hiOpen);
    const rows = await (f.sort === 'newest' ? between.reverse() : between).limit(chunk).toArray();
    for (const r of rows) if (test(r) && page.push(r) >= limit) break;
    if (page.length >= limit || rows.length < chunk) break;
    const last = keyOf(rows[rows.length - 1]!);
    if (f.sort === 'newest') [hi, hiOpen] = [last, true];
    else [lo, loOpen] = [last, true];
  }
  return page;
}

/** The same answer from every row in memory: the baseline the bench and the tests compare against. */
export function scanRuns(all: readonly RunRow[], f: RunFilter): RunRow[] {
  const status = wantedStatus(f);
  if (status === null) return [];
  return ordered(all.filter(rowTest(f, status, dayRange(f.fromDay, f.toDay))), f.sort);
}
