import fs from 'node:fs';
import path from 'node:path';
import { historyPath, openHistoryDb, type HistoryDb } from '../events/history-db';
import { ToolExecution } from '@shared/contracts/round';
import { DuplicateExecutionError, LedgerError, openFileLedger, type IdempotencyLedger, type KeptResult, type LedgerBeginMeta, type LedgerOutcome, type LedgerState } from './idempotency-ledger';

/**
 * The data folder's idempotency ledger (I5), in the history database (issue 26) beside the events:
 * one row per key. `begin` claims a key in an IMMEDIATE transaction — SQLite's write lock is the
 * cross-process exclusion (the app's host and a `steward run` beside it, each on its own
 * connection), so two processes never both begin one key — committed with a sync before the tool
 * call proceeds. The JSONL ledger it replaces took a lock file (open, fsync, unlink) per call and
 * appended its records without a sync: a crash could lose the record that prevents a repeated
 * write. A key begun and never finished stays `in_flight` for good (its outcome is unknown).
 *
 * Where its writes commit is the caller's (LedgerWrites): on a connection of its own, each write is
 * a transaction of its own (a steward command with no app); in the host, it shares the journal's
 * connection and a claim commits with the round's events (mcp/journal-ledger.ts).
 *
 * The JSONL ledger an older Steward kept (`idempotency-ledger.jsonl`) is read at the first open,
 * every key it knew kept in the state it had, and renamed `.migrated`.
 */
export const LEGACY_LEDGER = 'idempotency-ledger.jsonl';

/** How the ledger's writes are committed. */
export interface LedgerWrites {
  /** Runs `step` in an IMMEDIATE transaction committed with a sync before this returns; `step`'s error is thrown as is. */
  now(step: () => void): void;
  /** Runs `step` in a later such transaction (a crash before it leaves what it writes undone). */
  later(step: () => void): void;
}

export type DataFolderLedger = IdempotencyLedger & { close(): void };

export function openDataFolderLedger(dataDir: string, options: { busyTimeoutMs?: number } = {}): DataFolderLedger {
  const db = openHistoryDb(historyPath(dataDir), options.busyTimeoutMs);
  try {
    // Alone on its connection: every write is its own transaction, synced at once.
    const now = (step: () => void) => db.transaction(step).immediate();
    const ledger = new HistoryLedger(db, { now, later: now }, path.join(dataDir, LEGACY_LEDGER));
    return Object.assign(ledger, { close: () => db.close() });
  } catch (error) {
    db.close();
    throw error;
  }
}

export class HistoryLedger implements IdempotencyLedger {
  private readonly sql;
  /** Outcomes recorded and not yet committed (they ride in the next commit): answered from here meanwhile, with their kept results. */
  private readonly finishing = new Map<string, KeptResult | undefined>();
  /** Claims of reads not yet committed (they ride in the next commit): in flight, answered from here meanwhile. */
  private readonly claiming = new Set<string>();
  /**
   * The key the last `state` found new in the table: a round asks for its key's state (the review
   * reads it) just before it claims the key, and a read's claim need not ask the table again
   * (issue 26). A read's claim is not exclusive between processes anyway: its row rides in the
   * next commit. Every other claim reads the key again under the write lock.
   */
  private newInTable: string | undefined;

  constructor(
    private readonly db: HistoryDb,
    private readonly writes: LedgerWrites,
    legacyLedger: string,
  ) {
    this.sql = {
      state: this.db.prepare<[string], Exclude<LedgerState, 'new'>>('SELECT state FROM ledger WHERE key = ?').pluck(),
      begin: this.db.prepare<[string, string, number, string, string, string]>(
        "INSERT INTO ledger (key, state, run_id, round, server, tool, begun_at) VALUES (?, 'in_flight', ?, ?, ?, ?, ?)",
      ),
      finish: this.db.prepare<[string, number, number, string | null, string]>("UPDATE ledger SET state = 'executed', finished_at = ?, ok = ?, is_error = ?, result_run = ? WHERE key = ? AND state = 'in_flight'"),
      resultRun: this.db.prepare<[string], string | null>("SELECT result_run FROM ledger WHERE key = ? AND state = 'executed'").pluck(),
      executions: this.db.prepare<[string], string>("SELECT body FROM events WHERE run_id = ? AND type = 'tool.executed' ORDER BY seq").pluck(),
      keep: this.db.prepare<[string, string, string]>(
        "INSERT INTO ledger (key, state, run_id, round, server, tool, begun_at) VALUES (?, ?, '', 0, '', '', ?) ON CONFLICT (key) DO UPDATE SET state = CASE WHEN excluded.state = 'executed' THEN 'executed' ELSE ledger.state END",
      ),
    };
    this.migrate(legacyLedger);
  }

  state(key: string): LedgerState {
    const state = this.lookUp(key);
    this.newInTable = state === 'new' ? key : undefined;
    return state;
  }

  private lookUp(key: string): LedgerState {
    if (this.finishing.has(key)) return 'executed';
    if (this.claiming.has(key)) return 'in_flight';
    return this.sql.state.get(key) ?? 'new';
  }

  /**
   * Claims the key: committed (with whatever commits alongside) before this returns, or it throws
   * and the call does not run. A `read` (the registry's word) is claimed in this process at once and
   * its row rides in the next commit: a second read changes nothing, so a crash that loses the claim
   * loses nothing I5 protects, and the round needs no sync of its own (issue 26). Every other effect,
   * `unknown` included, is synced before the call.
   */
  begin(key: string, meta: LedgerBeginMeta): void {
    const at = new Date().toISOString();
    const lookedUp = this.newInTable === key;
    this.newInTable = undefined;
    if (meta.effect === 'read') {
      const state = lookedUp && !this.claiming.has(key) && !this.finishing.has(key) ? 'new' : this.lookUp(key);
      if (state !== 'new') throw new DuplicateExecutionError(key, state);
      this.claiming.add(key);
      try {
        this.writes.later(() => {
          this.claiming.delete(key);
          this.sql.begin.run(key, meta.run_id, meta.round, meta.server, meta.tool, at);
        });
      } catch (error) {
        this.claiming.delete(key);
        throw this.failure(error);
      }
      return;
    }
    this.write(() => {
      // Read under the write lock: another process's claim is seen before this one is made.
      const state = this.lookUp(key);
      if (state !== 'new') throw new DuplicateExecutionError(key, state);
      this.sql.begin.run(key, meta.run_id, meta.round, meta.server, meta.tool, at);
    });
  }

  /**
   * Records the outcome. It need not be durable at once: lost in a crash, the key stays in flight,
   * which is never run again either (I5 holds); it rides in the next commit.
   */
  finish(key: string, outcome: LedgerOutcome): void {
    const state = this.lookUp(key);
    if (state !== 'in_flight') throw new LedgerError(`cannot finish idempotency key ${key.slice(0, 12)}…: it is ${state}, not in flight`);
    const at = new Date().toISOString();
    this.finishing.set(key, outcome.result);
    const resultRun = outcome.result && outcome.recorded_in !== undefined ? outcome.recorded_in : null;
    try {
      this.writes.later(() => {
        this.finishing.delete(key);
        this.sql.finish.run(at, outcome.ok ? 1 : 0, outcome.is_error ? 1 : 0, resultRun, key);
      });
    } catch (error) {
      this.finishing.delete(key);
      throw this.failure(error);
    }
  }

  /**
   * The result an executed key's call gave back (any process's call): read from the history's own record of it,
   * the `tool.executed` for this key in the run its row names (by the parsed key, never the text). Undefined when
   * none was kept, that run's events are gone (deleted, or lost to a crash) or do not read as one: the call is then
   * refused as a repeat, as before results were kept. Before its commit, from this process's memory.
   */
  keptResult(key: string): KeptResult | undefined {
    if (this.finishing.has(key)) return this.finishing.get(key);
    const run = this.sql.resultRun.get(key);
    if (typeof run !== 'string') return undefined;
    // The run's records one at a time, up to the key's own: the first match ends the read.
    for (const body of this.sql.executions.iterate(run)) {
      const execution = executionIn(body);
      if (execution?.idempotency_key !== key) continue;
      return { ok: execution.ok, is_error: execution.is_error, content: execution.content, ...(execution.error !== undefined ? { error: execution.error } : {}) };
    }
    return undefined;
  }

  /** The check and the claim are one step for every process: the write lock is taken first (IMMEDIATE). */
  private write(step: () => void): void {
    try {
      this.writes.now(step);
    } catch (error) {
      throw this.failure(error);
    }
  }

  private failure(error: unknown): Error {
    if (error instanceof DuplicateExecutionError || error instanceof LedgerError) return error;
    // Fail closed: the key is not claimed, so the call does not run.
    return new LedgerError(`the idempotency ledger in ${this.db.name} could not be written (${error instanceof Error ? error.message : String(error)}); the call does not run`);
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

/** The execution a stored `tool.executed` event holds, checked by its contract; undefined for a body that does not read as one. */
function executionIn(body: string): ToolExecution | undefined {
  try {
    const parsed = ToolExecution.safeParse((JSON.parse(body) as { execution?: unknown }).execution);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
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
