import 'fake-indexeddb/auto';
import Dexie from 'dexie';
import { afterEach, describe, expect, it } from 'vitest';
import { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { DB_VERSION, SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V5, SCHEMA_V8, StewardDb, runEvents, type RunRow } from './db';
import { ingestEvents } from './ingest-events';
import { twoAgentHistory } from '../../test-support/two-agent-workflow';
import { runWords } from '@shared/history/search-words';
import { summarize } from './ingest-events';
import { workflowRow } from './seed-demo';
import { eventLog, finishRun, readExecutedRound, startRun, writeReplacedRound } from '../testing/event-fixtures';
import { referencedRun } from '../testing/learning-fixtures';

const names: string[] = [];
afterEach(async () => {
  for (const name of names.splice(0)) await Dexie.delete(name);
});

const doc = HostedWorkflow.parse({
  format: 'steward/v1',
  kind: 'agent',
  id: 'notes-cleanup',
  name: 'Tidy the notes folder',
  instructions: 'Be careful.',
  task: 'Summarise the notes.',
});

/** A database exactly as the v1 app left it: a workflow the user changed, a run, its events. */
async function v1Database(name: string) {
  const log = eventLog('run-before-upgrade');
  startRun(log);
  readExecutedRound(log, 0);
  writeReplacedRound(log, 1);
  finishRun(log, 'completed', 2, 'done');
  const old = new Dexie(name);
  old.version(1).stores(SCHEMA_V1);
  await old.open();
  const run = summarize(undefined, log.events, log.events.length) as RunRow;
  await old.table('workflows').put({ ...workflowRow(doc, 'user'), supervision_enabled: false, student: { provider: 'ollama', model: 'qwen3:4b', mode: 'structured', timeout_ms: 120_000 } });
  await old.table('runs').put(run);
  await old.table('events').bulkPut(log.events);
  old.close();
  return log;
}

describe('the v1 → v2 upgrade', () => {
  it('keeps every v1 workflow, run and event', async () => {
    const name = `steward-upgrade-${Math.random().toString(36).slice(2)}`;
    names.push(name);
    const log = await v1Database(name);

    const db = new StewardDb(name);
    await db.open();
    expect(db.verno).toBe(DB_VERSION);

    const wf = await db.workflows.get('notes-cleanup');
    expect(wf?.supervision_enabled).toBe(false);
    expect(wf?.student).toMatchObject({ provider: 'ollama', model: 'qwen3:4b' });
    expect((await db.runs.get('run-before-upgrade'))?.status).toBe('completed');
    expect((await runEvents(db, 'run-before-upgrade')).map((e) => e.id)).toEqual(log.events.map((e) => e.id));

    expect(await db.profiles.count()).toBe(0);
    db.close();
  });

  it('opens a fresh database at the current version with the new tables empty', async () => {
    const name = `steward-fresh-${Math.random().toString(36).slice(2)}`;
    names.push(name);
    const db = new StewardDb(name);
    await db.open();
    expect(db.verno).toBe(DB_VERSION);
    expect(db.tables.map((t) => t.name).sort()).toEqual(['events', 'held_runs', 'profiles', 'registry', 'runs', 'settings', 'workflows']);
    db.close();
  });
});

/** An empty database as an older app version opened it (deleted after the test). */
async function oldDatabase(name: string, version: number, schema: Record<string, string>): Promise<Dexie> {
  names.push(name);
  const old = new Dexie(name);
  old.version(version).stores(schema);
  await old.open();
  return old;
}

describe('the v2 → v3 upgrade', () => {
  it('keeps every run and lists them by status and by workflow through the new indexes, newest first', async () => {
    const name = `steward-v3-${Math.random().toString(36).slice(2)}`;
    const old = await oldDatabase(name, 2, SCHEMA_V2);
    const row = (run_id: string, status: RunRow['status'], workflow_id: string, started_at: string): RunRow => ({
      run_id, workflow_id, spec_name: workflow_id, status, started_at, rounds: 0, models: { student: 's', teacher: 't' }, supervision_enabled: true, stored_events: 0,
    });
    await old.table('runs').bulkPut([row('a', 'failed', 'w1', '2026-01-01T00:00:00Z'), row('b', 'failed', 'w2', '2026-01-03T00:00:00Z'), row('c', 'completed', 'w1', '2026-01-02T00:00:00Z')]);
    old.close();

    const db = new StewardDb(name);
    await db.open();
    expect(db.verno).toBe(DB_VERSION);
    const failed = await db.runs.where('[status+started_at+run_id]').between(['failed', Dexie.minKey], ['failed', Dexie.maxKey]).reverse().toArray();
    expect(failed.map((r) => r.run_id)).toEqual(['b', 'a']);
    const w1 = await db.runs.where('[workflow_id+started_at+run_id]').between(['w1', Dexie.minKey], ['w1', Dexie.maxKey]).toArray();
    expect(w1.map((r) => r.run_id)).toEqual(['a', 'c']);
    db.close();
  });
});

describe('the v3 → v4 upgrade', () => {
  it('fills the words of every stored run, so a run from before the upgrade is found by a word of its task, output or message', async () => {
    const name = `steward-v4-${Math.random().toString(36).slice(2)}`;
    const old = await oldDatabase(name, 3, SCHEMA_V3);
    const row = (run_id: string, task: string, output?: string, message?: string): RunRow => ({
      run_id, workflow_id: 'w1', spec_name: 'Tidy notes', task, status: 'failed', started_at: '2026-01-01T00:00:00Z', rounds: 0,
      models: { student: 'ollama:qwen3:4b', teacher: 'replay' }, supervision_enabled: true, stored_events: 0,
      ...(output !== undefined ? { output } : {}), ...(message !== undefined ? { message } : {}),
    });
    const before = [row('a', 'Archive the invoices', 'Moved 3 files'), row('b', 'Rename photos', undefined, 'Model timed out'), row('c', 'Draft the changelog')];
    await old.table('runs').bulkPut(before);
    old.close();

    const db = new StewardDb(name);
    await db.open();
    expect(db.verno).toBe(DB_VERSION);
    for (const r of before) expect((await db.runs.get(r.run_id))?.words).toEqual(runWords(r));
    const byPrefix = async (w: string) => (await db.runs.where('words').startsWith(w).primaryKeys()).sort();
    expect(await byPrefix('invoice')).toEqual(['a']);
    expect(await byPrefix('timed')).toEqual(['b']);
    expect(await byPrefix('tidy')).toEqual(['a', 'b', 'c']);
    expect(await byPrefix('qwen3')).toEqual(['a', 'b', 'c']);
    db.close();
  });
});

describe('the v6 → v7 upgrade', () => {
  it('v7: every run this page stored events of keeps them (held since it started); a run listed without events is not held', async () => {
    const name = `steward-v7-${Math.random().toString(36).slice(2)}`;
    const old = await oldDatabase(name, 6, SCHEMA_V5);
    const { log } = referencedRun('run-v7-aaaa', [{ rounds: 2, kinds: ['review'] }]);
    const row = summarize(undefined, log.events, log.events.length);
    await old.table('runs').bulkPut([row, { ...row, run_id: 'run-v7-listed', stored_events: 0 }]);
    await old.table('events').bulkPut(log.events);
    old.close();

    const db = new StewardDb(name);
    await db.open();
    expect(await db.held_runs.toArray()).toEqual([{ run_id: 'run-v7-aaaa', used_at: row?.started_at }]);
    expect(await db.events.count()).toBe(log.events.length);
    db.close();
  });
});

describe('the v8 → v9 upgrade (issue 26: the host keeps the learning examples and the promotion figures)', () => {
  it('drops the page’s learning examples and promotion tables, and keeps every run, event and held run', async () => {
    const events = twoAgentHistory('two-agents', { runs: 2, roundsPerNode: 3, writerBlockEvery: 3 });
    // A page as v8 kept it: the runs, their events, examples and held runs, and promotion rows.
    const v8Name = `steward-v9-${Math.random().toString(36).slice(2)}`;
    names.push(v8Name);
    const fresh = new StewardDb(v8Name);
    await fresh.open();
    await ingestEvents(fresh, events);
    const [runs, held] = await Promise.all([fresh.runs.toArray(), fresh.held_runs.toArray()]);
    const examples = events.filter((e) => e.type === 'learning.example');
    fresh.close();
    await Dexie.delete(v8Name);
    const old = await oldDatabase(v8Name, 8, SCHEMA_V8);
    await old.table('runs').bulkPut(runs);
    await old.table('events').bulkPut(events);
    await old.table('held_runs').bulkPut(held);
    await old.table('learning_examples').bulkPut(examples.map((e) => ({ id: e.id, run_id: e.run_id, kind: 'review', ts: e.ts })));
    await old.table('promotion_runs').put({ run_id: runs[0]!.run_id, dry_run: false, workflow_id: 'two-agents' });
    await old.table('promotion_outcomes').put({ id: 'x', workflow_id: 'two-agents', node: 'reader', ts: '2026-01-01T00:00:00.000Z', run_id: runs[0]!.run_id, round: 0, kind: 'review', scope: 'reader', agreed: true, blocked: false, protected_error: false, rank: 1, totals: {} });
    old.close();

    const db = new StewardDb(v8Name);
    await db.open();
    expect(db.verno).toBe(DB_VERSION);
    expect(db.tables.map((t) => t.name)).not.toContain('promotion_outcomes');
    expect(db.tables.map((t) => t.name)).not.toContain('learning_examples');
    expect(examples.length).toBeGreaterThan(0);
    expect(await db.runs.count()).toBe(runs.length);
    expect(await db.events.count()).toBe(events.length);
    expect(await db.held_runs.count()).toBe(held.length);
    db.close();
  });
});
