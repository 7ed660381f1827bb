import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, eventId } from '@shared/contracts/events';
import { DuplicateExecutionError, LedgerError } from '../mcp/idempotency-ledger';
import { openJournalLedger } from '../mcp/journal-ledger';
import { tempFolder } from '../../test-support/temp-folder';
import { openCommandRunWriter } from './command-run-writer';
import { historyPath } from './history-db';

/**
 * Issue 26: a steward command with no app writes as the host does — its ledger on the history's
 * connection, a claim committed with the run's pending events — and fails closed as the host does.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const RUN = 'run-command-writer-test';
const ev = (seq: number): RunEvent => ({ type: 'round.started', id: eventId(RUN, seq), run_id: RUN, seq, ts: new Date(0).toISOString(), round: seq, proposer: 'student' });
const meta = { run_id: RUN, round: 0, server: 'fs', tool: 'write_file' };

function commandFolder() {
  const dataDir = tempFolder('steward-command-writer-', cleanups);
  const logs: string[] = [];
  const writer = openCommandRunWriter(dataDir, (line) => logs.push(line), { windowMs: 60_000 });
  cleanups.push(() => writer.close());
  const ledger = openJournalLedger(writer.journal, writer, dataDir);
  const other = new Database(historyPath(dataDir), { readonly: true });
  cleanups.push(() => {
    other.close();
  });
  const stored = () => (other.prepare('SELECT count(*) AS n FROM events WHERE run_id = ?').get(RUN) as { n: number }).n;
  return { dataDir, writer, ledger, stored, logs };
}

describe("a steward command's history writes", () => {
  it('a claim commits the pending events with it; a refused one (a key already claimed) still commits them, and throws as the ledger does', () => {
    const c = commandFolder();
    c.writer.onEvent(ev(0));
    c.ledger.begin('key-1', meta);
    expect(c.stored()).toBe(1);
    c.writer.onEvent(ev(1));
    expect(() => c.ledger.begin('key-1', meta)).toThrow(DuplicateExecutionError);
    expect(c.stored()).toBe(2);
    expect(c.ledger.state('key-1')).toBe('in_flight');
  });

  it('a claim that cannot be written fails closed, keeps the events, and the next write stores them', () => {
    const c = commandFolder();
    c.writer.journal.connection.pragma('busy_timeout = 50');
    c.writer.onEvent(ev(0));
    // Another process holds the write lock past the busy timeout.
    const blocker = new Database(join(c.dataDir, 'history.sqlite'));
    blocker.exec('BEGIN IMMEDIATE');
    try {
      expect(() => c.ledger.begin('key-1', meta)).toThrow(LedgerError);
    } finally {
      blocker.exec('ROLLBACK');
      blocker.close();
    }
    expect(c.ledger.state('key-1')).toBe('new');
    expect(c.stored()).toBe(0);
    expect(c.writer.flush()).toBeUndefined();
    expect(c.stored()).toBe(1);
  });

  it("an outcome rides in the next commit, and the end's flush writes it even with no event pending", () => {
    const c = commandFolder();
    c.ledger.begin('key-1', meta);
    c.ledger.finish('key-1', { ok: true, is_error: false });
    const key = () => (c.writer.journal.connection.prepare('SELECT state FROM ledger WHERE key = ?').get('key-1') as { state: string }).state;
    expect(key()).toBe('in_flight');
    expect(c.ledger.state('key-1')).toBe('executed');
    expect(c.writer.flush()).toBeUndefined();
    expect(key()).toBe('executed');
  });
});
