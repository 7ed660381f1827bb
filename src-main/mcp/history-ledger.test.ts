import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LEGACY_LEDGER, openDataFolderLedger } from './history-ledger';
import { DuplicateExecutionError, LedgerError, openFileLedger } from './idempotency-ledger';

/** Issue 26: the idempotency ledger lives in the history database; an older folder's JSONL ledger moves in, losing no key. */

const meta = { run_id: 'run-1', round: 3, server: 'fs', tool: 'write_file' };
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-history-ledger-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the ledger in the history database', () => {
  it('remembers executed and in-flight keys after a restart, and never lets either begin again', () => {
    const first = openDataFolderLedger(dir);
    first.begin('done', meta);
    first.finish('done', { ok: true, is_error: false });
    first.begin('cut-off', meta); // the process dies mid-call: never finished
    first.close();
    const again = openDataFolderLedger(dir);
    expect(again.state('done')).toBe('executed');
    expect(again.state('cut-off')).toBe('in_flight');
    expect(() => again.begin('done', meta)).toThrow(DuplicateExecutionError);
    expect(() => again.begin('cut-off', meta)).toThrow(/in flight/);
    again.close();
  });

  it('a read claimed just after its state was read is claimed once: the state read is used for that one claim only', () => {
    const ledger = openDataFolderLedger(dir);
    const read = { ...meta, tool: 'read_text_file', effect: 'read' as const };
    expect(ledger.state('k')).toBe('new');
    ledger.begin('k', read);
    // Committed (alone on its connection): a second claim asks the table again and is refused.
    expect(() => ledger.begin('k', read)).toThrow(DuplicateExecutionError);
    expect(ledger.state('k')).toBe('in_flight');
    // Another process claims a key after this one read it as new: a write's claim reads it again under the lock.
    expect(ledger.state('w')).toBe('new');
    const other = openDataFolderLedger(dir);
    other.begin('w', meta);
    expect(() => ledger.begin('w', meta)).toThrow(DuplicateExecutionError);
    other.close();
    ledger.close();
  });

  it('an older folder\'s JSONL ledger moves in at the first open: every key keeps its state, the file is kept aside', () => {
    const legacy = path.join(dir, LEGACY_LEDGER);
    const old = openFileLedger(legacy);
    old.begin('old-done', meta);
    old.finish('old-done', { ok: true, is_error: true });
    old.begin('old-cut-off', meta);
    const ledger = openDataFolderLedger(dir);
    expect(ledger.state('old-done')).toBe('executed');
    expect(ledger.state('old-cut-off')).toBe('in_flight');
    expect(ledger.state('never')).toBe('new');
    expect(fs.existsSync(legacy)).toBe(false);
    expect(fs.existsSync(`${legacy}.migrated`)).toBe(true);
    expect(() => ledger.begin('old-done', meta)).toThrow(DuplicateExecutionError);
    ledger.close();
  });

  it('a damaged JSONL ledger refuses to open, as it always did: no key is guessed', () => {
    fs.writeFileSync(path.join(dir, LEGACY_LEDGER), '{not json\n{"type":"finish","key":"k","ok":true,"is_error":false,"at":"x"}\n');
    expect(() => openDataFolderLedger(dir)).toThrow(LedgerError);
    expect(fs.existsSync(path.join(dir, LEGACY_LEDGER))).toBe(true);
  });

  it('a claim that cannot be written fails closed: the key is not claimed and the call does not run', () => {
    const ledger = openDataFolderLedger(dir, { busyTimeoutMs: 50 });
    // Another process holds the database's write lock past the busy timeout.
    const other = new Database(path.join(dir, 'history.sqlite'));
    other.exec('BEGIN IMMEDIATE');
    expect(() => ledger.begin('blocked', meta)).toThrow(/could not be written.*does not run/);
    other.exec('ROLLBACK');
    other.close();
    expect(ledger.state('blocked')).toBe('new');
    ledger.begin('blocked', meta);
    expect(ledger.state('blocked')).toBe('in_flight');
    ledger.close();
  });

  /** A run's `tool.executed` for a key, as the history stores it (the row only: the ledger reads nothing else). */
  function recordExecuted(runId: string, seq: number, key: string, content: string): void {
    const db = new Database(path.join(dir, 'history.sqlite'));
    const execution = { server: 'fs', tool: 'read_text_file', arguments: {}, idempotency_key: key, ok: true, is_error: false, content, duration_ms: 2 };
    db.prepare('INSERT INTO events (id, run_id, seq, type, body) VALUES (?, ?, ?, ?, ?)').run(`${runId}:${seq}`, runId, seq, 'tool.executed', JSON.stringify({ type: 'tool.executed', run_id: runId, seq, round: 1, execution }));
    db.close();
  }

  it('gives an executed key\'s result from the history\'s record of it, in the run its row names, matched by the parsed key', () => {
    const first = openDataFolderLedger(dir);
    const result = { ok: true, is_error: false, content: 'the notes, as the model got them' };
    first.begin('kept', meta);
    first.finish('kept', { ok: true, is_error: false, result, recorded_in: 'run-1' });
    // Committed at once here (no window), and the history has no record of it yet: nothing to give.
    expect(first.keptResult?.('kept')).toBeUndefined();
    first.begin('bare', meta);
    first.finish('bare', { ok: true, is_error: false });
    first.begin('cut-off', meta);
    first.close();
    // Another key's record first: only the one whose parsed key matches is taken.
    recordExecuted('run-1', 0, 'other', 'not this one');
    recordExecuted('run-1', 1, 'kept', result.content);
    const again = openDataFolderLedger(dir);
    expect(again.keptResult?.('kept')).toEqual(result);
    expect(again.keptResult?.('bare')).toBeUndefined();
    expect(again.keptResult?.('cut-off')).toBeUndefined();
    expect(again.keptResult?.('never')).toBeUndefined();
    // Kept or not, an executed key never begins again.
    expect(() => again.begin('kept', meta)).toThrow(DuplicateExecutionError);
    again.close();
  });

  it('keeps no copy of its own: once the run is deleted (or its record lost, or unreadable) nothing is given, and the call is refused as a repeat', () => {
    const ledger = openDataFolderLedger(dir);
    ledger.begin('k', meta);
    ledger.finish('k', { ok: true, is_error: false, result: { ok: true, is_error: false, content: 'x' }, recorded_in: 'run-1' });
    ledger.close();
    recordExecuted('run-1', 0, 'k', 'x');
    const db = new Database(path.join(dir, 'history.sqlite'));
    expect(db.prepare("SELECT result_run FROM ledger WHERE key = 'k'").get()).toEqual({ result_run: 'run-1' });
    db.prepare("UPDATE events SET body = '{\"execution\":{\"idempotency_key\":\"k\"}}'").run();
    db.close();
    const damaged = openDataFolderLedger(dir);
    expect(damaged.keptResult?.('k')).toBeUndefined();
    damaged.close();
    const again = new Database(path.join(dir, 'history.sqlite'));
    again.prepare("DELETE FROM events WHERE run_id = 'run-1'").run();
    again.close();
    const deleted = openDataFolderLedger(dir);
    expect(deleted.state('k')).toBe('executed');
    expect(deleted.keptResult?.('k')).toBeUndefined();
    deleted.close();
  });

  it('a history made before results were kept gets the column at its first open, its keys as they were; an older Steward still reads it', () => {
    const file = path.join(dir, 'history.sqlite');
    const ledger = openDataFolderLedger(dir);
    ledger.begin('old', meta);
    ledger.finish('old', { ok: true, is_error: false });
    ledger.close();
    // The table as schema 4 made it: no result_run column.
    const db = new Database(file);
    db.exec('ALTER TABLE ledger DROP COLUMN result_run');
    expect(db.prepare("SELECT count(*) AS n FROM pragma_table_info('ledger') WHERE name = 'result_run'").get()).toEqual({ n: 0 });
    const version = db.pragma('user_version', { simple: true });
    db.close();
    const opened = openDataFolderLedger(dir);
    expect(opened.state('old')).toBe('executed');
    expect(opened.keptResult?.('old')).toBeUndefined();
    opened.begin('new', meta);
    opened.finish('new', { ok: true, is_error: false, result: { ok: true, is_error: false, content: 'y' }, recorded_in: 'run-9' });
    opened.close();
    const after = new Database(file);
    // The same schema version: a Steward from before this reads the folder as it did (it names its columns).
    expect(after.pragma('user_version', { simple: true })).toBe(version);
    expect(after.prepare('SELECT key, state, result_run FROM ledger ORDER BY key').all()).toEqual([
      { key: 'new', state: 'executed', result_run: 'run-9' },
      { key: 'old', state: 'executed', result_run: null },
    ]);
    after.close();
  });
});
