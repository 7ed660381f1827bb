import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { summarize } from '@shared/history/run-summary';
import { StewardDb, runEvents } from './db';
import { ingestEvents } from './ingest-events';
import { mergeSummaries } from './run-summaries';
import { DEFAULT_BUDGET, holdNewestRuns, markUsed, readBudget, trimToBudget, writeBudget } from './history-budget';
import { fetchRunEvents, holdsWhole } from './run-events-from-host';
import { runsJsonl } from '../screens/runs/runs-jsonl';
import { referencedRun } from '../testing/learning-fixtures';

/** A finished run of `rounds` rounds (learning examples included), started at minute `minute` of a day. */
function run(id: string, rounds: number, minute: number): RunEvent[] {
  const ts = (seq: number) => new Date(Date.UTC(2026, 0, 5, 9, minute, seq)).toISOString();
  return referencedRun(id, [{ rounds, kinds: ['review'] }]).log.events.map((e) => ({ ...e, ts: ts(e.seq) }));
}
const row = (events: RunEvent[]) => {
  const r = summarize(undefined, events, events.length);
  if (!r) throw new Error('no row');
  return r;
};
/** The host's history (the test double of runs.events is the journal's own paging rule: by seq, `limit` at a time). */
function hostOf(runs: Record<string, RunEvent[]>, limit = 7) {
  const asked: string[] = [];
  const fetchPage = async (runId: string, after: number) => {
    asked.push(runId);
    const all = runs[runId];
    if (!all) return { events: [], known: false };
    const rest = all.filter((e) => e.seq > after);
    const events = rest.slice(0, limit);
    return { events, known: true, ...(rest.length > limit ? { next: events.at(-1)?.seq } : {}) };
  };
  return { fetchPage, asked };
}

let db: StewardDb;
beforeEach(async () => {
  db = new StewardDb(`steward-budget-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

describe('what a page keeps of the history (issue 26)', () => {
  it('a run that runs while the page watches is kept whole; a finished run listed from the host is indexed and its events left on the host', async () => {
    const live = run('run-live-0001', 3, 10);
    const listed = run('run-listed-01', 3, 1);
    await mergeSummaries(db, [row(listed)]);
    await ingestEvents(db, [...listed, ...live], { fresh: true });
    expect(await runEvents(db, 'run-live-0001')).toHaveLength(live.length);
    expect(await runEvents(db, 'run-listed-01')).toHaveLength(0);
    // Indexed all the same: its row counted every event.
    expect(await db.runs.get('run-listed-01')).toMatchObject({ status: 'completed', stored_events: listed.length });
    expect(await holdsWhole(db, 'run-live-0001')).toBe(true);
    expect(await holdsWhole(db, 'run-listed-01')).toBe(false);
  });

  it('a fresh page holds the newest runs whose events fit in the budget, and stores their events as they come', async () => {
    const runs = Array.from({ length: 5 }, (_, i) => run(`run-new-000${i}`, 4, i));
    await mergeSummaries(db, runs.map(row));
    const perRun = runs[0]?.length ?? 0;
    await holdNewestRuns(db, { events: perRun * 2 + 1 });
    expect((await db.held_runs.orderBy('run_id').primaryKeys()).sort()).toEqual(['run-new-0003', 'run-new-0004']);
    await ingestEvents(db, runs.flat(), { fresh: true });
    expect(await db.events.count()).toBe(perRun * 2);
  });

  it('past the budget, the events of the runs used longest ago go; a run opened since, a run open now and a run not ended stay, with every row and example', async () => {
    const runs = Array.from({ length: 4 }, (_, i) => run(`run-old-000${i}`, 4, i));
    const waiting = run('run-waiting-1', 4, 0).filter((e) => e.type !== 'run.finished');
    await ingestEvents(db, [...runs.flat(), ...waiting], { fresh: true });
    await markUsed(db, 'run-old-0000', '2026-02-01T00:00:00.000Z'); // opened later: the newest use
    const perRun = runs[0]?.length ?? 0;
    const dropped = await trimToBudget(db, { events: perRun * 3 + waiting.length }, new Set(['run-old-0001']));
    expect(dropped).toEqual(['run-old-0002']);
    expect(await runEvents(db, 'run-old-0002')).toHaveLength(0);
    for (const kept of ['run-old-0000', 'run-old-0001', 'run-old-0003', 'run-waiting-1']) expect((await runEvents(db, kept)).length).toBeGreaterThan(0);
    expect(await db.runs.count()).toBe(5);
    // Nothing to drop within the budget.
    expect(await trimToBudget(db, { events: 1_000_000 })).toEqual([]);
  });

  it('a budget lowered while a fresh page still indexes holds at once: runs are weighed by the events they will hold', async () => {
    const runs = Array.from({ length: 6 }, (_, i) => run(`run-fresh-00${i}`, 4, i));
    await mergeSummaries(db, runs.map(row));
    const perRun = runs[0]?.length ?? 0;
    await holdNewestRuns(db, { events: perRun * 6 });
    expect(await db.held_runs.count()).toBe(6);
    // No event is here yet; lowered to two runs' worth, the four used longest ago are no longer held.
    const dropped = await trimToBudget(db, { events: perRun * 2 });
    expect(dropped.sort()).toEqual(['run-fresh-000', 'run-fresh-001', 'run-fresh-002', 'run-fresh-003']);
    await ingestEvents(db, runs.flat(), { fresh: true });
    expect(await db.events.count()).toBe(perRun * 2);
  });

  it('opening a run the page does not keep brings its events from the host page by page, and keeps it as used now', async () => {
    const events = run('run-opened-01', 6, 2);
    await mergeSummaries(db, [row(events)]);
    const host = hostOf({ 'run-opened-01': events });
    const progress: number[] = [];
    const outcome = await fetchRunEvents(db, host.fetchPage, 'run-opened-01', (n) => progress.push(n));
    expect(outcome).toEqual({ kind: 'held', events: events.length });
    expect(await runEvents(db, 'run-opened-01')).toEqual(events);
    expect(progress.at(-1)).toBe(events.length);
    expect(progress.length).toBe(Math.ceil(events.length / 7));
    expect(await holdsWhole(db, 'run-opened-01')).toBe(true);
    // The row is not counted twice: it was the host's, and the events it counted are the same ones.
    expect(await db.runs.get('run-opened-01')).toMatchObject({ event_count: events.length });
    expect(await fetchRunEvents(db, host.fetchPage, 'run-gone-0001')).toEqual({ kind: 'unknown' });
  });

  it('Export JSONL writes every event of a run the page does not keep, read from the host', async () => {
    const kept = run('run-kept-0001', 2, 5);
    const away = run('run-away-0001', 3, 1);
    await mergeSummaries(db, [row(away)]);
    await ingestEvents(db, [...away, ...kept], { fresh: true });
    const host = hostOf({ 'run-away-0001': away, 'run-kept-0001': kept });
    const text = await runsJsonl(db, ['run-kept-0001', 'run-away-0001'], host.fetchPage);
    const ids = text.trim().split('\n').map((line) => (JSON.parse(line) as RunEvent).id);
    expect(ids).toEqual([...away, ...kept].map((e) => e.id));
    expect(new Set(host.asked)).toEqual(new Set(['run-away-0001']));
  });

  it('the budget a person sets is kept; a damaged value reads as the default', async () => {
    expect(await readBudget(db)).toEqual(DEFAULT_BUDGET);
    await writeBudget(db, { events: 5_000 });
    expect(await readBudget(db)).toEqual({ events: 5_000 });
    await db.table('settings').put({ key: 'history-budget', value: { events: -3 } });
    expect(await readBudget(db)).toEqual(DEFAULT_BUDGET);
    await expect(writeBudget(db, { events: 10 })).rejects.toThrow();
  });
});
