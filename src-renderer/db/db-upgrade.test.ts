import 'fake-indexeddb/auto';
import Dexie from 'dexie';
import { afterEach, describe, expect, it } from 'vitest';
import { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { SCHEMA_V1, StewardDb, runEvents, type RunRow } from './db';
import { summarize } from './ingest-events';
import { workflowRow } from './seed-demo';
import { eventLog, finishRun, readExecutedRound, startRun, writeReplacedRound } from '../testing/event-fixtures';

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
  it('keeps every v1 workflow, run and event, and distils the stored learning examples', async () => {
    const name = `steward-upgrade-${Math.random().toString(36).slice(2)}`;
    names.push(name);
    const log = await v1Database(name);

    const db = new StewardDb(name);
    await db.open();
    expect(db.verno).toBe(2);

    const wf = await db.workflows.get('notes-cleanup');
    expect(wf?.supervision_enabled).toBe(false);
    expect(wf?.student).toMatchObject({ provider: 'ollama', model: 'qwen3:4b' });
    expect((await db.runs.get('run-before-upgrade'))?.status).toBe('completed');
    expect((await runEvents(db, 'run-before-upgrade')).map((e) => e.id)).toEqual(log.events.map((e) => e.id));

    const examples = await db.learning_examples.toArray();
    const learningEvents = log.events.filter((e) => e.type === 'learning.example');
    expect(learningEvents).toHaveLength(1);
    expect(examples.map((e) => e.id)).toEqual(learningEvents.map((e) => e.id));
    expect(examples[0]).toMatchObject({ run_id: 'run-before-upgrade', spec_id: 'notes-cleanup', kind: 'review', agreement: false });
    expect(await db.profiles.count()).toBe(0);
    db.close();
  });

  it('opens a fresh database at v2 with the new tables empty', async () => {
    const name = `steward-fresh-${Math.random().toString(36).slice(2)}`;
    names.push(name);
    const db = new StewardDb(name);
    await db.open();
    expect(db.verno).toBe(2);
    expect(db.tables.map((t) => t.name).sort()).toEqual(['events', 'learning_examples', 'profiles', 'registry', 'runs', 'settings', 'workflows']);
    db.close();
  });
});
