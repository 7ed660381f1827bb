import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { keepFilePrivate } from '../util/private-folder';
import { FOLDED_SCHEMA } from './folded-schema';

/**
 * The history database (issue 26): SQLite in the data folder, WAL, one writer at a time (the folder
 * lock says which process; a busy timeout covers a reader meanwhile). Opening it reads nothing
 * proportional to the history: the schema is created once, every list is an indexed query.
 *
 * Tables:
 *   meta        key → value: the history's identity (a page cursor from another means nothing here),
 *               `floor` (the head never goes back below it: removed positions are never handed out
 *               again), `compacted` (tombstones made at or before it were dropped), the legacy
 *               journal's migration state.
 *   events      one row per event, keyed by position and by id; (run_id, seq) is unique: two
 *               different events never share a place in a run.
 *   runs        one row per run: what retention and the lists need (status, workflow, times,
 *               counts) and `summary`, the row the page shows (src-shared/history/run-summary.ts).
 *   run_words   FTS5 over each run's search words (the same words the page's search uses: masked
 *               values stay masked), rowid = the run's rowid.
 *   tombstones  removed runs and the head when they were removed, oldest first.
 *   ledger      the idempotency ledger: one row per tool call's key (mcp/history-ledger.ts).
 *   waiting     runs waiting for a person: one checkpoint per run and kind (agent, workflow), and who
 *               claimed it to resume it (events/checkpoint-table.ts).
 *   promotion_* promotion figures per agent node, folded from the events when asked (events/promotion-store.ts).
 *   learning_examples  the Learning list's examples, folded the same way (events/learning-store.ts).
 */
export const HISTORY_FILE = 'history.sqlite';
export const historyPath = (dataDir: string) => path.join(dataDir, HISTORY_FILE);

/**
 * 1: events, runs, words, tombstones · 2: the idempotency ledger (mcp/history-ledger.ts) · 3: the
 * checkpoints of waiting runs (events/checkpoint-table.ts) · 4: promotion figures and learning examples, folded
 * from the events when asked (events/history-fold.ts).
 */
export const SCHEMA_VERSION = 4;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
  pos INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS events_run_seq ON events (run_id, seq);
CREATE TABLE IF NOT EXISTS runs (
  n INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE,
  spec_id TEXT,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  next_seq INTEGER NOT NULL,
  rounds INTEGER NOT NULL,
  stored INTEGER NOT NULL,
  imported INTEGER NOT NULL DEFAULT 0,
  retention_days INTEGER,
  retention_runs INTEGER,
  summary TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_started ON runs (started_at DESC, run_id DESC);
CREATE INDEX IF NOT EXISTS runs_status ON runs (status, started_at DESC);
CREATE INDEX IF NOT EXISTS runs_spec ON runs (spec_id, started_at DESC);
CREATE INDEX IF NOT EXISTS runs_open ON runs (run_id) WHERE finished_at IS NULL;
CREATE INDEX IF NOT EXISTS runs_kept ON runs (spec_id) WHERE retention_days IS NOT NULL OR retention_runs IS NOT NULL;
CREATE VIRTUAL TABLE IF NOT EXISTS run_words USING fts5 (words, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0');
CREATE TABLE IF NOT EXISTS tombstones (n INTEGER PRIMARY KEY, run_id TEXT NOT NULL UNIQUE, at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS ledger (
  key TEXT PRIMARY KEY,
  state TEXT NOT NULL CHECK (state IN ('in_flight', 'executed')),
  run_id TEXT NOT NULL,
  round INTEGER NOT NULL,
  server TEXT NOT NULL,
  tool TEXT NOT NULL,
  begun_at TEXT NOT NULL,
  finished_at TEXT,
  ok INTEGER,
  is_error INTEGER,
  result_run TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS waiting (
  n INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('agent', 'workflow')),
  run_id TEXT NOT NULL,
  body TEXT NOT NULL,
  saved_at TEXT NOT NULL,
  claimed_by TEXT,
  claimed_at TEXT,
  UNIQUE (kind, run_id)
);
${FOLDED_SCHEMA}`;

/** The history database could not be opened as one: a person decides what happens to it, never Steward. */
export class HistoryDamagedError extends Error {
  readonly code = 'history_damaged' as const;
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(
      `The history database ${file} is damaged or is not a Steward history (${reason}). It was left exactly as it is. ` +
        `Move it out of the data folder to start a new, empty history (keep it: its runs may still be recovered with the sqlite3 tool's .recover), ` +
        `or put a backup in its place, then start Steward again.`,
    );
    this.name = 'HistoryDamagedError';
  }
}

export type HistoryDb = Database.Database;

/**
 * The ledger's `result_run` column (the run whose history records a call's result whole: history-ledger.ts),
 * added to a history made before it without a new schema version: an older Steward still opens the folder
 * and ignores the column. The write lock is taken once, when the column is missing; a second process adding
 * it first is no error.
 */
function keepLedgerResults(db: HistoryDb): void {
  const has = () => db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('ledger')").all().some((c) => c.name === 'result_run');
  if (has()) return;
  db.transaction(() => {
    if (!has()) db.exec('ALTER TABLE ledger ADD COLUMN result_run TEXT');
  }).immediate();
}

/** Opens (creating when absent) the history database with its schema; a damaged file is refused in words. */
export function openHistoryDb(file: string, busyTimeoutMs = 10_000): HistoryDb {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let db: HistoryDb | undefined;
  try {
    db = new Database(file, { timeout: busyTimeoutMs });
    // The user's alone, before anything is written (its -wal and -shm files take its mode).
    keepFilePrivate(file);
    const version = Number(db.pragma('user_version', { simple: true }));
    // Before the first table: a deletion frees its pages for the file to shrink (incremental_vacuum).
    if (version === 0) db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    // Every commit is synced: an event a page was told of survives a power cut, not only a crash.
    db.pragma('synchronous = FULL');
    if (version > SCHEMA_VERSION) {
      throw new Error(`it was written by a newer Steward (history schema ${version}; this one reads ${SCHEMA_VERSION})`);
    }
    // Written once: opening an existing history takes no write lock (a steward command may be writing).
    if (version < SCHEMA_VERSION) {
      db.exec(SCHEMA);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }
    keepLedgerResults(db);
    return db;
  } catch (error) {
    db?.close();
    const reason = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: string }).code ?? '';
    if (/SQLITE_(CORRUPT|NOTADB)/.test(code) || /newer Steward/.test(reason)) throw new HistoryDamagedError(file, reason);
    throw new Error(`Cannot open the history database ${file}: ${reason}`);
  }
}
