import type { RunStatus } from '@shared/contracts/events';
import type { RunRow } from '@shared/history/run-summary';
import { matchesWords, runWords, searchWords } from '@shared/history/search-words';
import { providerOfLabel, type RunFilter } from './run-filter';

/*
 * Whether a run's row matches the Runs screen's filter, and the list's order: the same for the rows
 * the page reads from its IndexedDB (run-query.ts) and those the host's history finds (host-search.ts).
 * No Dexie here: a module that tests rows needs no database.
 */

/** A day's bounds as ISO instants: `from` the local midnight starting `fromDay`, `to` the one ending `toDay` (exclusive). */
export function dayRange(fromDay?: string, toDay?: string): { from?: string; to?: string } {
  const midnight = (day: string, plusDays: number) => {
    const [y, m, d] = day.split('-').map(Number) as [number, number, number];
    return new Date(y, m - 1, d + plusDays).toISOString();
  };
  return { ...(fromDay ? { from: midnight(fromDay, 0) } : {}), ...(toDay ? { to: midnight(toDay, 1) } : {}) };
}

/** The one status a filter allows, `null` when it allows none (waiting for you + another status). */
export function wantedStatus(f: RunFilter): RunStatus | undefined | null {
  if (!f.waitingForYou) return f.status;
  return f.status === undefined || f.status === 'waiting' ? 'waiting' : null;
}

/**
 * What a person typed, read as a run's id, whole or its start (at least 8 characters: the short id the
 * lists show). Run ids are UUIDs; a word that could be one still matches as a word too.
 */
export function runIdPrefix(text: string): string | undefined {
  const typed = text.trim().toLowerCase();
  return /^[0-9a-f][0-9a-f-]{7,35}$/.test(typed) ? typed : undefined;
}

/**
 * Everything but the index range: applied row by row on the index cursor. `text: false` leaves the
 * text out (rows the host's database found by it: host-search.ts).
 */
export function rowTest(f: RunFilter, status: RunStatus | undefined, range: { from?: string; to?: string }, text = true): (r: RunRow) => boolean {
  const words = text ? searchWords(f.text) : [];
  const idPrefix = runIdPrefix(f.text);
  const textMatches = (r: RunRow) => words.length === 0 || matchesWords(r.words ?? runWords(r), words) || (idPrefix !== undefined && r.run_id.startsWith(idPrefix));
  return (r) =>
    (status === undefined || r.status === status) &&
    (f.workflowId === undefined || r.workflow_id === f.workflowId) &&
    (f.supervision === undefined || r.supervision_enabled === (f.supervision === 'supervised')) &&
    (f.provider === undefined || providerOfLabel(r.models.student) === f.provider || providerOfLabel(r.models.teacher) === f.provider) &&
    (f.origin === undefined || (r.imported === true) === (f.origin === 'imported')) &&
    (range.from === undefined || r.started_at >= range.from) &&
    (range.to === undefined || r.started_at < range.to) &&
    // The row's indexed words (masked values are stored masked, so they stay masked here); every query word starts one.
    // Or the text is the run's id, whole or its start.
    textMatches(r);
}

const byStart = (a: RunRow, b: RunRow) => (a.started_at < b.started_at ? -1 : a.started_at > b.started_at ? 1 : a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0);

/** Rows in the list's order: by start, then run id (the key order of the indexes the list pages through). */
export function ordered(rows: RunRow[], sort: RunFilter['sort']): RunRow[] {
  const asc = rows.sort(byStart);
  return sort === 'newest' ? asc.reverse() : asc;
}
