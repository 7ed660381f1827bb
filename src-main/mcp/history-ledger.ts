import fs from 'node:fs';
import path from 'node:path';
import { historyPath, openHistoryDb, type HistoryDb } from '../events/history-db';
import { DuplicateExecutionError, LedgerError, openFileLedger, type IdempotencyLedger, type LedgerBeginMeta, type LedgerOutcome, type LedgerState } from './idempotency-ledger';

/**
 * The data folder's idempotency ledger (I5), in the history database (issue 26) beside the events:
 * one row per key. `begin` claims a key in an IMMEDIATE transaction — SQLite's write lock is the
 * cross-process exclusion (the app's host and a `steward run` beside it), so two processes never
 * both begin one key — and every claim and outcome is committed with a sync before the tool call
 * proceeds. The JSONL ledger it replaces took a lock file (open, fsync, unlink) per call and
 * appended its records without a sync: a crash could lose the record that prevents a repeated
 * write. A key begun and never finished stays `in_flight` for good (its outcome is unknown).
 *
 * The JSONL ledger an older Steward kept (`idempotency-ledger.jsonl`) is read at the first open,
 * every key it knew kept in the state it had, and renamed `.migrated`.
 */
export const LEGACY_LEDGER = 'idempotency-ledger.jsonl';

export function openDataFolderLedger(dataDir: string, options: { busyTimeoutMs?: number } = {}): IdempotencyLedger & { close(): void } {
  return new HistoryLedger(dataDir, options.busyTimeoutMs);
}

class HistoryLedger implements IdempotencyLedger {
  private readonly db: HistoryDb;
  private readonly sql;

  constructor(dataDir: string, busyTimeoutMs?: number) {
    this.db = openHistoryDb(historyPath(dataDir), busyTimeoutMs);
    this.sql = {
      state: this.db.prepare<[string], { state: Exclude<LedgerState, 'new'> }>('SELECT state FROM ledger WHERE key = ?'),
      begin: this.db.prepare<[string, string, number, string, string, string]>(
        "INSERT INTO ledger (key, state, run_id, round, server, tool, begun_at) VALUES (?, 'in_flight', ?, ?, ?, ?, ?)",
      ),
      finish: this.db.prepare<[string, number, number, string]>("UPDATE ledger SET state = 'executed', finished_at = ?, ok = ?, is_error = ? WHERE key = ? AND state = 'in_flight'"),
      keep: this.db.prepare<[string, string, string]>(
        "INSERT INTO ledger (key, state, run_id, round, server, tool, begun_at) VALUES (?, ?, '', 0, '', '', ?) ON CONFLICT (key) DO UPDATE SET state = CASE WHEN excluded.state = 'executed' THEN 'executed' ELSE ledger.state END",
      ),
    };
    this.migrate(path.join(dataDir, LEGACY_LEDGER));
  }

  state(key: string): LedgerState {
    return this.sql.state.get(key)?.state ?? 'new';
  }

  begin(key: string, meta: LedgerBeginMeta): void {
    this.write(() => {
      const state = this.sql.state.get(key)?.state;
      if (state !== undefined) throw new DuplicateExecutionError(key, state);
      this.sql.begin.run(key, meta.run_id, meta.round, meta.server, meta.tool, new Date().toISOString());
    });
  }

  finish(key: string, outcome: LedgerOutcome): void {
    this.write(() => {
      const changed = this.sql.finish.run(new Date().toISOString(), outcome.ok ? 1 : 0, outcome.is_error ? 1 : 0, key).changes;
      if (changed === 0) throw new LedgerError(`cannot finish idempotency key ${key.slice(0, 12)}…: it is ${this.state(key)}, not in flight`);
    });
  }

  close(): void {
    this.db.close();
  }

  /** One IMMEDIATE transaction: the write lock first, so the check and the claim are one step for every process. */
  private write(step: () => void): void {
    try {
      this.db.transaction(step).immediate();
    } catch (error) {
      if (error instanceof DuplicateExecutionError || error instanceof LedgerError) throw error;
      // Fail closed: the key is not claimed, so the call does not run.
      throw new LedgerError(`the idempotency ledger in ${this.db.name} could not be written (${error instanceof Error ? error.message : String(error)}); the call does not run`);
    }
  }

  /** Every key the old JSONL ledger knew, in the state it had (its own reader: a damaged file refuses to open, as it did). */
  private migrate(legacy: string): void {
    if (!fs.existsSync(legacy)) return;
    const old = openFileLedger(legacy);
    const keys = readLegacyKeys(legacy);
    const at = new Date().toISOString();
    this.db
      .transaction(() => {
        for (const key of keys) {
          const state = old.state(key);
          if (state !== 'new') this.sql.keep.run(key, state, at);
        }
      })
      .immediate();
    try {
      fs.renameSync(legacy, `${legacy}.migrated`);
    } catch (error) {
      // Another process on the folder moved it first: its keys are in the table all the same.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/** The keys named in a JSONL ledger (its reader validated every line when it opened). */
function readLegacyKeys(file: string): Set<string> {
  const keys = new Set<string>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const key = (JSON.parse(line) as { key?: unknown }).key;
      if (typeof key === 'string') keys.add(key);
    } catch {
      // A torn last line: the file ledger's reader already decided what it means.
    }
  }
  return keys;
}
