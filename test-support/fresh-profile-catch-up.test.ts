import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventId, type RunEvent } from '../src-shared/contracts/events';
import { SupervisionSpec } from '../src-shared/contracts/spec';
import { openHistory } from '../src-main/events/open-history';
import { StewardDb } from '../src-renderer/db/db';
import { createHostClient } from '../src-renderer/host/host-client';
import { CATCH_UP_EVENTS, startHostSession, type IndexingState } from '../src-renderer/host/host-session';
import { queryRuns } from '../src-renderer/screens/runs/run-query';
import { writeBudget } from '../src-renderer/db/history-budget';
import { fetchRunEvents, holdsWhole } from '../src-renderer/db/run-events-from-host';
import { runEvents } from '../src-renderer/db/db';
import { RunFilter } from '../src-renderer/screens/runs/run-filter';
import { inProcessTransport, openTestHost } from './host-session';

/**
 * Issue 26: a fresh browser profile on a long history lists every run, right, before it has
 * indexed their events (a finished run is never shown running meanwhile), finds a run by the start
 * of its id, and says how far it is. The real host and the page's real session and database.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const RUNS = 60;
const STEPS = 60; // 60 runs of 62 events: 3,720 events, past CATCH_UP_EVENTS
const ts = (i: number) => new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString();
const runId = (i: number) => `${String(i).padStart(8, '0')}-aaaa-4bbb-8ccc-dddddddddddd`;

function recordedRun(i: number): RunEvent[] {
  const run = runId(i);
  const events: RunEvent[] = [
    {
      type: 'run.started',
      id: eventId(run, 0),
      run_id: run,
      seq: 0,
      ts: ts(i),
      spec_id: 'notes-cleanup',
      spec_name: 'Notes cleanup',
      task: `Tidy the meeting notes of week ${i}`,
      supervision: SupervisionSpec.parse({ enabled: false }),
      models: { student: 'replay:student', teacher: 'replay:teacher' },
      exposure: [],
      profiles: {},
      dry_run: false,
    },
  ];
  for (let s = 1; s <= STEPS; s++) events.push({ type: 'round.started', id: eventId(run, s), run_id: run, seq: s, ts: ts(i), round: s - 1, proposer: 'student' });
  events.push({ type: 'run.finished', id: eventId(run, STEPS + 1), run_id: run, seq: STEPS + 1, ts: ts(i), status: 'completed', rounds: STEPS, event_count: STEPS + 2 });
  return events;
}

describe('a fresh profile on a long history', () => {
  it('lists every run, finished ones as finished, before their events are indexed; finds one by its id start; says how far it is', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-catch-up-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const history = openHistory(dataDir, { log: () => undefined });
    for (let i = 0; i < RUNS; i++) history.append(recordedRun(i));
    expect(history.head).toBeGreaterThan(CATCH_UP_EVENTS);
    history.close();
    const host = await openTestHost(dataDir, cleanups);

    const db = new StewardDb(`steward-catch-up-${Math.random().toString(36).slice(2)}`);
    cleanups.push(() => db.delete());
    const states: Array<IndexingState | undefined> = [];
    /** What the Runs list showed when the events began to arrive. */
    let listedAtFirstEvents: { count: number; running: number } | undefined;
    const client = createHostClient(inProcessTransport(host, 'fresh-profile'));
    const session = startHostSession(client, db, {
      connection: () => undefined,
      info: () => undefined,
      providers: () => undefined,
      problem: () => undefined,
      indexing: (state) => {
        states.push(state);
        if (state?.stage === 'events' && listedAtFirstEvents === undefined) {
          void db.runs.toArray().then((rows) => (listedAtFirstEvents ??= { count: rows.length, running: rows.filter((r) => r.status === 'running').length }));
        }
      },
    });
    cleanups.push(() => {
      session.stop();
      client.close();
    });

    await expect.poll(() => states.some((s) => s?.stage === 'events'), { timeout: 20_000 }).toBe(true);
    await expect.poll(() => listedAtFirstEvents).toBeDefined();
    expect(listedAtFirstEvents).toEqual({ count: RUNS, running: 0 });
    const runsStage = states.filter((s): s is Extract<IndexingState, { stage: 'runs' }> => s?.stage === 'runs');
    expect(runsStage.at(-1)).toEqual({ stage: 'runs', listed: RUNS, total: RUNS });

    // Found by the first 8 characters of its id, as a person copies it from a terminal.
    const found = await queryRuns(db, RunFilter.parse({ text: runId(42).slice(0, 8) }), 10);
    expect(found.map((r) => r.run_id)).toEqual([runId(42)]);
    expect(found[0]).toMatchObject({ spec_name: 'Notes cleanup', status: 'completed', task: 'Tidy the meeting notes of week 42' });

    // Then the events follow; once they are in, the notice goes and each run holds all of its events.
    await expect.poll(() => states.at(-1), { timeout: 30_000 }).toBeUndefined();
    const rows = await db.runs.toArray();
    expect(rows.every((r) => r.stored_events === STEPS + 2 && r.event_count === STEPS + 2)).toBe(true);
    expect(await db.events.count()).toBe(RUNS * (STEPS + 2));
  }, 60_000);

  it('within a budget of 1,000 events it keeps the newest runs whole, indexes the rest, and an old run opened comes whole from the host', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-budget-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const history = openHistory(dataDir, { log: () => undefined });
    for (let i = 0; i < RUNS; i++) history.append(recordedRun(i));
    history.close();
    const host = await openTestHost(dataDir, cleanups);

    const db = new StewardDb(`steward-budget-${Math.random().toString(36).slice(2)}`);
    cleanups.push(() => db.delete());
    await db.open();
    await writeBudget(db, { events: 1_000 });
    const states: Array<IndexingState | undefined> = [];
    const client = createHostClient(inProcessTransport(host, 'budget-profile'));
    const session = startHostSession(client, db, { connection: () => undefined, info: () => undefined, providers: () => undefined, problem: () => undefined, indexing: (state) => states.push(state) });
    cleanups.push(() => {
      session.stop();
      client.close();
    });
    await expect.poll(() => states.length > 0 && states.at(-1) === undefined, { timeout: 30_000 }).toBe(true);
    await session.done();

    // Every run listed and indexed; the events of the 16 newest (16 × 62 ≤ 1,000) kept.
    const rows = await db.runs.toArray();
    expect(rows).toHaveLength(RUNS);
    expect(rows.every((r) => r.status === 'completed' && r.stored_events === STEPS + 2)).toBe(true);
    const kept = Math.floor(1_000 / (STEPS + 2));
    expect(await db.events.count()).toBe(kept * (STEPS + 2));
    expect(await holdsWhole(db, runId(RUNS - 1))).toBe(true);
    expect(await holdsWhole(db, runId(3))).toBe(false);

    // Opened: its events come from the host's history, equal to what the host holds.
    const outcome = await fetchRunEvents(db, (run_id, after_seq) => client.request('runs.events', { run_id, after_seq, limit: 25 }), runId(3));
    expect(outcome).toEqual({ kind: 'held', events: STEPS + 2 });
    expect(await runEvents(db, runId(3))).toEqual(recordedRun(3));
    expect(await client.request('runs.events', { run_id: 'no-such-run-0001' })).toEqual({ events: [], known: false });
  }, 60_000);
});
