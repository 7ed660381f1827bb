import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { historyPath } from '../events/history-db';
import { openHistory } from '../events/open-history';
import { runAgent } from '../engine/run-agent';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { acceptAll, editNotes, readNotes, readingSpec } from '../../test-support/reading-spec';
import { walCommits } from '../../test-support/wal-commits';
import { openDataFolderLedger } from './history-ledger';
import { DuplicateExecutionError, LedgerError } from './idempotency-ledger';
import { openHostWrites } from './journal-ledger';

/**
 * Issue 26, one durable write per round: in the host, a round's ledger claim, its committed decision
 * and the events before it are one transaction and one sync; the tool's outcome and its result
 * events ride in the next commit; nobody is told of an event before it is durable. A read (the
 * registry's word) changes nothing a repeat could double: its claim rides in the next commit too, so
 * its round has no sync of its own. Counted from the write-ahead log itself
 * (test-support/wal-commits.ts), never timed.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const meta = { run_id: 'run-journal-ledger', round: 0, server: 'fs', tool: 'read_text_file' };

/** The host's history writes on a fresh data folder, its window long enough that only what must commit does. */
function hostHistory() {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const dataDir = join(ws.dir, 'data');
  const journal = openHistory(dataDir, { log: () => undefined });
  cleanups.push(() => journal.close());
  // The log never starts over during the test: its commit frames are the count.
  journal.connection.pragma('wal_autocheckpoint = 0');
  const { writer, ledger } = openHostWrites(journal, dataDir, { windowMs: 60_000 });
  const file = historyPath(dataDir);
  // Another connection sees only what was committed: what a restarted host, or a steward command, would read.
  const other = new Database(file, { readonly: true });
  cleanups.push(() => other.close());
  const storedElsewhere = (id: string) => other.prepare('SELECT 1 FROM events WHERE id = ?').get(id) !== undefined;
  const keyElsewhere = (key: string) => (other.prepare('SELECT state FROM ledger WHERE key = ?').get(key) as { state: string } | undefined)?.state ?? 'new';
  return { ws, dataDir, journal, writer, ledger, file, commits: () => walCommits(file), storedElsewhere, keyElsewhere };
}

/** What subscribers are told, and every event told before another connection could read it (a problem). */
function watchTold(h: ReturnType<typeof hostHistory>): { told: RunEvent[]; problems: string[] } {
  const told: RunEvent[] = [];
  const problems: string[] = [];
  h.journal.subscribe(({ events }) => {
    for (const event of events) {
      // Told only after the commit: another connection already sees it.
      if (!h.storedElsewhere(event.id)) problems.push(`${event.type} told before it was committed`);
      told.push(event);
    }
  });
  return { told, problems };
}

describe('one durable write per round (the host\'s history writes)', () => {
  it('a supervised round that writes commits exactly once, before its call: the claim carries the round\'s events, the result rides in the next', async () => {
    const h = hostHistory();
    const rounds = 5;
    const atSnapshot: number[] = [];
    const result = await runAgent({
      spec: readingSpec(rounds),
      specDir: h.ws.dir,
      workspace: h.ws.workspace,
      script: { latency_ms: 0, student: Array.from({ length: rounds }, () => editNotes(h.ws.workspace)), teacher: acceptAll(rounds) },
      ledger: h.ledger,
      onEvent: (event) => {
        if (event.type === 'tools.snapshot') atSnapshot.push(h.commits());
        h.writer.onEvent(event);
      },
    });
    expect(result.executions).toHaveLength(rounds);
    // Between the start of one round and the next: one commit, the claim of the round's tool call.
    const perRound = atSnapshot.slice(1).map((n, i) => n - atSnapshot[i]!);
    expect(perRound).toEqual(Array.from({ length: rounds - 1 }, () => 1));
    const beforeEnd = h.commits();
    h.writer.flush();
    expect(h.commits()).toBe(beforeEnd + 1);
    // Every key executed, every event stored, in order.
    for (const execution of result.executions) expect(h.ledger.state(execution.idempotency_key)).toBe('executed');
    const stored = h.journal.runEvents(result.run_id);
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i));
    expect(stored.at(-1)?.type).toBe('run.finished');
  }, 60_000);

  it('never tells a page or a watcher of an event before it is durable: a tool\'s result waits for the next commit', async () => {
    const h = hostHistory();
    const { told, problems } = watchTold(h);
    const rounds = 3;
    await runAgent({
      spec: readingSpec(rounds),
      specDir: h.ws.dir,
      workspace: h.ws.workspace,
      script: { latency_ms: 0, student: Array.from({ length: rounds }, () => editNotes(h.ws.workspace)), teacher: acceptAll(rounds) },
      ledger: h.ledger,
      onEvent: (event) => {
        h.writer.onEvent(event);
        if (event.type === 'tool.executed') {
          // Taken by the writer, not committed: nobody knows of it yet, and its key's outcome is answered from memory.
          if (told.some((e) => e.id === event.id) || h.storedElsewhere(event.id)) problems.push(`round ${event.round}'s result was out before a commit`);
          if (h.ledger.state(event.execution.idempotency_key) !== 'executed') problems.push(`round ${event.round}'s key is not answered as executed`);
          if (h.keyElsewhere(event.execution.idempotency_key) !== 'in_flight') problems.push(`round ${event.round}'s claim is not committed, or its outcome was committed alone`);
        }
        if (event.type === 'decision.committed') {
          // Held for the claim that follows it: committed with it, before the tool runs.
          if (h.storedElsewhere(event.id)) problems.push(`round ${event.round}'s committed decision had a commit of its own`);
        }
      },
    });
    h.writer.flush();
    expect(problems).toEqual([]);
    expect(told.map((e) => e.seq)).toEqual(told.map((_, i) => i));
  }, 60_000);

  it('a round that only reads syncs nothing of its own: its claim, decision and result ride in the next commit, and nobody is told before it', async () => {
    const h = hostHistory();
    const { told, problems } = watchTold(h);
    const rounds = 5;
    const before = h.commits();
    const result = await runAgent({
      spec: readingSpec(rounds),
      specDir: h.ws.dir,
      workspace: h.ws.workspace,
      script: { latency_ms: 0, student: Array.from({ length: rounds }, () => readNotes(h.ws.workspace)), teacher: [] },
      ledger: h.ledger,
      onEvent: (event) => {
        h.writer.onEvent(event);
        if (event.type === 'tool.executed') {
          // Claimed here (answered from memory), not yet in the database: a crash now loses a read, nothing more.
          if (h.ledger.state(event.execution.idempotency_key) !== 'executed') problems.push(`round ${event.round}'s key is not answered as executed`);
          if (h.keyElsewhere(event.execution.idempotency_key) !== 'new') problems.push(`round ${event.round}'s read claim had a commit of its own`);
        }
      },
    });
    expect(result.executions).toHaveLength(rounds);
    // The writer's window (a minute here) never closed, and no round forced a commit: the run start's decision aside, none.
    expect(h.commits() - before).toBeLessThanOrEqual(1);
    h.writer.flush();
    expect(problems).toEqual([]);
    // After the commit every read's key is executed for any connection, and a repeat of one is refused.
    for (const execution of result.executions) expect(h.keyElsewhere(execution.idempotency_key)).toBe('executed');
    const first = result.executions[0]!.idempotency_key;
    expect(() => h.ledger.begin(first, { ...meta, effect: 'read' })).toThrow(DuplicateExecutionError);
    expect(told.map((e) => e.seq)).toEqual(told.map((_, i) => i));
  }, 60_000);

  it('a key claimed twice is refused, and the events waiting with the claim are committed all the same', () => {
    const h = hostHistory();
    h.ledger.begin('twice', meta);
    const event: RunEvent = { type: 'run.notice', id: 'run-journal-ledger:0', run_id: 'run-journal-ledger', seq: 0, ts: new Date().toISOString(), message: 'waiting with the claim' };
    h.writer.onEvent(event);
    const before = h.commits();
    expect(() => h.ledger.begin('twice', meta)).toThrow(DuplicateExecutionError);
    expect(h.storedElsewhere(event.id)).toBe(true);
    expect(h.commits()).toBe(before + 1);
  });

  it('a claim whose commit fails fails closed: the key is not claimed and the call does not run', () => {
    const h = hostHistory();
    // Another process holds the database's write lock past the busy timeout.
    h.journal.connection.pragma('busy_timeout = 50');
    const other = new Database(h.file);
    other.exec('BEGIN IMMEDIATE');
    expect(() => h.ledger.begin('blocked', meta)).toThrow(LedgerError);
    other.exec('ROLLBACK');
    other.close();
    expect(h.ledger.state('blocked')).toBe('new');
    h.ledger.begin('blocked', meta);
    expect(h.ledger.state('blocked')).toBe('in_flight');
  });

  it('an outcome not yet committed is lost in a crash safely: the key stays in flight and never runs again', () => {
    const h = hostHistory();
    h.ledger.begin('cut-off', meta);
    h.ledger.finish('cut-off', { ok: true, is_error: false });
    expect(h.ledger.state('cut-off')).toBe('executed');
    // What a restart reads: the claim, not the outcome that was still waiting for a commit.
    const restarted = openDataFolderLedger(h.dataDir);
    cleanups.push(() => restarted.close());
    expect(restarted.state('cut-off')).toBe('in_flight');
    expect(() => restarted.begin('cut-off', meta)).toThrow(/in flight/);
    // Here it is refused as executed (and the refused claim's commit carries the outcome).
    expect(() => h.ledger.begin('cut-off', meta)).toThrow(/already been executed/);
    expect(restarted.state('cut-off')).toBe('executed');
  });
});
