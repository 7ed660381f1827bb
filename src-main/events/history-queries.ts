import type { RunStatus } from '@shared/contracts/events';
import type { RunRow } from '@shared/history/run-summary';
import { searchWords } from '@shared/history/search-words';
import type { HistoryDb } from './history-db';

/** Which runs, and which page of them: newest first (or oldest), continuing after `after` (the last row of the page before). */
export interface RunsQuery {
  status?: readonly RunStatus[] | undefined;
  /** A workflow's id (or an agent spec's). */
  workflow?: string | undefined;
  /** Runs started at or after this instant (ISO), and before `to` (the page's date filter). */
  from?: string | undefined;
  to?: string | undefined;
  /** Oldest first (then `after` is the last row of the page before, in that order). Default newest first. */
  oldest?: boolean | undefined;
  /** Only the runs from imported traces (true) or only those that ran here (false). */
  imported?: boolean | undefined;
  /** Rows per page; default 50, at most 1,000. */
  limit?: number | undefined;
  after?: RunsCursor | undefined;
}

/** Where a page ended: the next page starts after this run. */
export interface RunsCursor {
  started_at: string;
  run_id: string;
}

export interface ListedRun {
  run: RunRow;
  /** Events stored for it. */
  events: number;
  /** It came from an imported trace (never ran on this host). */
  imported: boolean;
}

export interface RunsPage {
  runs: ListedRun[];
  /** Present when more runs follow: ask again with `after` set to it. */
  next?: RunsCursor;
}

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1_000;

interface Row {
  run_id: string;
  started_at: string;
  stored: number;
  imported: number;
  summary: string;
}

/** A page of runs, newest first (the runs_started index: cost grows with the page, not the history). */
export function runsQuery(db: HistoryDb, query: RunsQuery): RunsPage {
  return page(db, query, []);
}

/**
 * Past this many runs matching the words, a page walks the runs newest first (the runs_started
 * index) and keeps those that match, instead of reading every match to sort them: words most runs
 * hold ("notes" in a history of Notes runs) took 350 ms at 172,000 runs that way, 25 ms this way
 * (bench/history-scale at 10M events). A rarer word is faster the other way (under a millisecond).
 */
export const BROAD_MATCH = 2_000;

/**
 * Runs a person looks for by what they typed: every word, by prefix, in the run's search words
 * (FTS5 over the same words the page's search uses), or the run's id, whole or its start.
 */
export function searchQuery(db: HistoryDb, text: string, query: RunsQuery, broadMatch = BROAD_MATCH): RunsPage {
  const trimmed = text.trim();
  const words = searchWords(trimmed);
  const clauses: string[] = [];
  const params: unknown[] = [];
  // A run id is one token of letters, digits and dashes (a UUID): whole or its start.
  if (/^[\w:.-]{4,}$/.test(trimmed)) {
    clauses.push('(run_id >= ? AND run_id < ?)');
    params.push(trimmed, `${trimmed}\uffff`);
  }
  let broad = false;
  if (words.length > 0) {
    const match = words.map((word) => `"${word.replaceAll('"', '""')}"*`).join(' AND ');
    clauses.push('n IN (SELECT rowid FROM run_words WHERE run_words MATCH ?)');
    params.push(match);
    // Counted no further than the bound: a few milliseconds however many runs match.
    if (Number.isFinite(broadMatch)) {
      const counted = db.prepare<[string, number], { c: number }>('SELECT count(*) AS c FROM (SELECT rowid FROM run_words WHERE run_words MATCH ? LIMIT ?)').get(match, broadMatch + 1);
      broad = (counted?.c ?? 0) > broadMatch;
    }
  }
  if (clauses.length === 0) return { runs: [] };
  return page(db, query, [{ sql: `(${clauses.join(' OR ')})`, params }], broad ? 'runs_started' : undefined);
}

function page(db: HistoryDb, query: RunsQuery, extra: { sql: string; params: unknown[] }[], indexedBy?: 'runs_started'): RunsPage {
  const limit = Math.min(MAX_LIMIT, Math.max(1, Math.floor(query.limit ?? DEFAULT_LIMIT)));
  const where: string[] = [];
  const params: unknown[] = [];
  for (const clause of extra) {
    where.push(clause.sql);
    params.push(...clause.params);
  }
  if (query.status && query.status.length > 0) {
    where.push(`status IN (${query.status.map(() => '?').join(', ')})`);
    params.push(...query.status);
  }
  if (query.workflow !== undefined) {
    where.push('spec_id = ?');
    params.push(query.workflow);
  }
  if (query.imported !== undefined) {
    where.push('imported = ?');
    params.push(query.imported ? 1 : 0);
  }
  if (query.from !== undefined) {
    where.push('started_at >= ?');
    params.push(query.from);
  }
  if (query.to !== undefined) {
    where.push('started_at < ?');
    params.push(query.to);
  }
  const [before, order] = query.oldest ? ['>', 'ASC'] : ['<', 'DESC'];
  if (query.after) {
    where.push(`(started_at ${before} ? OR (started_at = ? AND run_id ${before} ?))`);
    params.push(query.after.started_at, query.after.started_at, query.after.run_id);
  }
  const sql = `SELECT run_id, started_at, stored, imported, summary FROM runs ${indexedBy ? `INDEXED BY ${indexedBy} ` : ''}${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY started_at ${order}, run_id ${order} LIMIT ?`;
  const rows = db.prepare<unknown[], Row>(sql).all(...params, limit + 1);
  const more = rows.length > limit;
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return {
    runs: shown.map((row) => ({ run: JSON.parse(row.summary) as RunRow, events: row.stored, imported: row.imported === 1 })),
    ...(more && last ? { next: { started_at: last.started_at, run_id: last.run_id } } : {}),
  };
}

/**
 * The child runs of these runs (issue 29), grandchildren too: a child's id is its parent's, `:`, and
 * the invocation that ran it (workflow-node.ts: childRunId), so they are the ids that start with the
 * parent's and a colon (the runs table's unique index on run_id; `;` is the character after `:`).
 */
export function childRunIdsQuery(db: HistoryDb, runIds: readonly string[]): string[] {
  const statement = db.prepare<[string, string], { run_id: string }>('SELECT run_id FROM runs WHERE run_id > ? AND run_id < ?');
  const found = new Set<string>();
  for (const id of runIds) for (const row of statement.all(`${id}:`, `${id};`)) found.add(row.run_id);
  for (const id of runIds) found.delete(id);
  return [...found];
}
