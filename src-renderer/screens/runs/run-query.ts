import Dexie from 'dexie';
import type { RunStatus } from '@shared/contracts/events';
import type { RunRow, StewardDb } from '../../db/db';
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

function searchWords(text: string): string[] {
  return text.toLowerCase().split(/\s+/).filter(Boolean);
}

/** What text search looks in; masked values are stored masked, so they stay masked here. */
function haystack(r: RunRow): string {
  return `${r.spec_name}\n${r.task ?? ''}\n${r.output ?? ''}\n${r.message ?? ''}\n${r.models.student}\n${r.models.teacher}`.toLowerCase();
}

const hasEvery = (text: string, words: readonly string[]) => words.every((w) => text.includes(w));

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
    (words.length === 0 || hasEvery(haystack(r), words));
}

/** Rows read per step while a page fills: small first (a broad filter fills it at once), then larger. */
const FIRST_CHUNK = RUN_PAGE;
const MAX_CHUNK = 500;

type IndexKey = unknown[];

/**
 * The first `limit` runs matching `f`, in the chosen order. The most selective index drives the read
 * ([status+started_at+run_id], [workflow_id+started_at+run_id], else [started_at+run_id]), bounded by the date range;
 * the rest (supervision, text) is tested per row. Rows are read in chunks, each continuing after the last key read
 * (the run id makes every key unique), and reading stops as soon as the page is full. Text has no index: a search
 * that matches rarely reads every run in the index range (see docs/benchmarks.md).
 */
export async function queryRuns(db: StewardDb, f: RunFilter, limit: number): Promise<RunRow[]> {
  const status = wantedStatus(f);
  if (status === null || limit <= 0) return [];
  const range = dayRange(f.fromDay, f.toDay);
  const prefix: IndexKey = status !== undefined ? [status] : f.workflowId !== undefined ? [f.workflowId] : [];
  const index = status !== undefined ? '[status+started_at+run_id]' : f.workflowId !== undefined ? '[workflow_id+started_at+run_id]' : '[started_at+run_id]';
  const keyOf = (r: RunRow): IndexKey => [...prefix, r.started_at, r.run_id];
  // [...prefix, day] sorts before every key of that day and after every key of the days before.
  let lo: unknown = range.from !== undefined ? [...prefix, range.from] : prefix.length > 0 ? [...prefix, Dexie.minKey] : Dexie.minKey;
  let hi: unknown = range.to !== undefined ? [...prefix, range.to] : prefix.length > 0 ? [...prefix, Dexie.maxKey] : Dexie.maxKey;
  let loOpen = false;
  let hiOpen = true;
  const test = rowTest(f, status, range);
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
  const test = rowTest(f, status, dayRange(f.fromDay, f.toDay));
  const asc = (a: RunRow, b: RunRow) => (a.started_at < b.started_at ? -1 : a.started_at > b.started_at ? 1 : a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0);
  const sorted = all.filter(test).sort(asc);
  return f.sort === 'newest' ? sorted.reverse() : sorted;
}
