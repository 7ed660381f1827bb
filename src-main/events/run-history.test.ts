import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RunEvent, eventId } from '@shared/contracts/events';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { hostedEcho } from '../../test-support/hosted-workflows';
import { hostPage, openTestHost } from '../../test-support/host-session';
import type { Host } from '../composition/host-types';
import { runCli } from '../shells/cli/cli';
import { EventJournal } from './event-journal';
import { IMPORTED_UNFINISHED_MESSAGE } from './run-history';

// A deletion blocked by another process's write fails fast here, not after the default 10 s.
beforeAll(() => {
  process.env.STEWARD_HISTORY_BUSY_MS = '100';
});

/** Issue 9: runs are deleted from the host's journal (and so from every page), imported, and kept only as long as their trace profile says. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function dataFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-history-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const open = (dataDir: string): Promise<Host> => openTestHost(dataDir, cleanups);

type Page = ReturnType<typeof hostPage>;

async function runEcho(p: Page, name: string): Promise<string> {
  await p.ok('workflows.save', { workflow: hostedEcho(name) });
  const { run_id } = await p.ok('workflows.run', { id: name, inputs: { name } });
  await expect.poll(() => p.events.some((e) => e.type === 'run.finished' && e.run_id === run_id), { timeout: 20_000 }).toBe(true);
  return run_id;
}

/** The first demo agent, answering at once: one round, no tool. */
async function quickAgent(p: Page): Promise<HostedWorkflow> {
  const { workflows } = await p.ok('workspace.demo', {});
  const demo = workflows.find((w) => w.id === 'notes-assistant') ?? workflows[0]!;
  return { ...demo, script: { latency_ms: 0, student: [{ json: { decision_type: 'complete', output: 'done' } }], teacher: [], committee: [], monitor: [] } } as HostedWorkflow;
}

const ts = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString();
function recordedRun(runId: string, specId: string, daysAgo: number, retention?: { days?: number; runs?: number }): RunEvent[] {
  return [
    RunEvent.parse({
      type: 'run.started',
      id: eventId(runId, 0),
      run_id: runId,
      seq: 0,
      ts: ts(daysAgo),
      spec_id: specId,
      spec_name: specId,
      task: `task of ${runId}`,
      supervision: { enabled: false },
      models: { student: 'script', teacher: 'script' },
      exposure: [],
      profiles: {},
      dry_run: false,
      ...(retention ? { retention } : {}),
    }),
    { type: 'run.finished', id: eventId(runId, 1), run_id: runId, seq: 1, ts: ts(daysAgo), status: 'completed', rounds: 0, event_count: 2 },
  ];
}

/** A finished workflow run; with `parent`, a child run a workflow node of that run started (issue 29). */
function recordedWorkflowRun(runId: string, workflowId: string, daysAgo: number, retention?: { days?: number; runs?: number }, parent?: string): RunEvent[] {
  return [
    RunEvent.parse({
      type: 'workflow.started',
      id: eventId(runId, 0),
      run_id: runId,
      seq: 0,
      ts: ts(daysAgo),
      workflow_id: workflowId,
      workflow_name: workflowId,
      nodes: [],
      inputs: {},
      ...(retention ? { retention } : {}),
      ...(parent ? { parent: { run_id: parent, invocation_id: 'hail', workflow_id: 'greet' } } : {}),
    }),
    { type: 'run.finished', id: eventId(runId, 1), run_id: runId, seq: 1, ts: ts(daysAgo), status: 'completed', rounds: 0, event_count: 2 },
  ];
}

describe('deleting runs', () => {
  it('a deleted run never comes back: not after a restart, not to a page subscribing afresh, and every page that held it is told', async () => {
    const dataDir = dataFolder();
    const host = await open(dataDir);
    const a = hostPage(host, 'a');
    await a.ok('events.subscribe', {});
    const gone = await runEcho(a, 'first');
    const kept = await runEcho(a, 'second');
    const before = await a.ok('events.subscribe', {});
    const b = hostPage(host, 'b');
    await b.ok('events.subscribe', { journal: before.journal, after: before.head });

    expect(await a.ok('runs.delete', { run_ids: [gone, 'not-a-run-here'] })).toEqual({ deleted: 1 });
    expect(a.deleted).toEqual([gone]);
    expect(b.deleted).toEqual([gone]);

    const fresh = hostPage(host, 'fresh');
    await fresh.ok('events.subscribe', {});
    await expect.poll(() => fresh.events.some((e) => e.run_id === kept && e.type === 'run.finished')).toBe(true);
    expect(fresh.events.filter((e) => e.run_id === gone)).toEqual([]);
    expect(fresh.deleted).toEqual([]);
    await host.close();

    const again = await open(dataDir);
    const back = hostPage(again, 'back');
    // A page that held the run (its cursor from before the deletion) is told when it resubscribes.
    expect(await back.ok('events.subscribe', { journal: before.journal, after: before.head })).toMatchObject({ head: before.head, deleted: 1 });
    expect(back.deleted).toEqual([gone]);
    const afresh = hostPage(again, 'afresh');
    await afresh.ok('events.subscribe', {});
    await expect.poll(() => afresh.events.some((e) => e.run_id === kept && e.type === 'run.finished')).toBe(true);
    expect(afresh.events.some((e) => e.run_id === gone)).toBe(false);
    expect(await afresh.call('runs.otlp', { run_id: gone })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('a run waiting for a person is refused with a conflict that says why, and stays', async () => {
    const host = await open(dataFolder());
    const p = hostPage(host, 'p');
    await p.ok('events.subscribe', {});
    const { workflows } = await p.ok('workspace.demo', {});
    const { run_id } = await p.ok('run.start', { workflow: workflows.find((w) => w.id === 'ask-a-human')!, overrides: {} });
    await expect.poll(() => p.events.some((e) => e.run_id === run_id && e.type === 'intervention.requested'), { timeout: 20_000 }).toBe(true);
    const refused = await p.call('runs.delete', { run_ids: [run_id] });
    expect(refused).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(refused.ok ? '' : refused.error.message).toMatch(/waiting for a person/);
    expect((await p.ok('interventions.pending', {})).interventions.map((i) => i.run_id)).toEqual([run_id]);
    expect(p.deleted).toEqual([]);
  });

  it('a failed deletion deletes nothing: runs.delete answers what to fix, and every page still has the run', async () => {
    const dataDir = dataFolder();
    const host = await open(dataDir);
    const p = hostPage(host, 'p');
    await p.ok('events.subscribe', {});
    const run = await runEcho(p, 'stays');
    // A real failure: another process holds the history's write lock past the busy timeout.
    const other = new Database(join(dataDir, 'history.sqlite'));
    other.exec('BEGIN IMMEDIATE');
    const refused = await p.call('runs.delete', { run_ids: [run] });
    other.exec('ROLLBACK');
    other.close();
    expect(refused).toMatchObject({ ok: false, error: { code: 'host_error' } });
    expect(refused.ok ? '' : refused.error.message).toMatch(/nothing was deleted.*try again/);
    expect(p.deleted).toEqual([]);
    const fresh = hostPage(host, 'fresh');
    await fresh.ok('events.subscribe', {});
    await expect.poll(() => fresh.events.some((e) => e.run_id === run && e.type === 'run.finished')).toBe(true);
    expect(await p.ok('runs.delete', { run_ids: [run] })).toEqual({ deleted: 1 });
    expect(p.deleted).toEqual([run]);
  });

  it('steward runs delete that fails deletes nothing and says what to fix (exit 1)', async () => {
    const dataDir = dataFolder();
    const journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
    journal.append(recordedRun('cli-stay-0001', 'cli', 0));
    journal.close();
    const other = new Database(join(dataDir, 'history.sqlite'));
    other.exec('BEGIN IMMEDIATE');
    let stderr = '';
    const code = await runCli(['runs', 'delete', 'cli-stay-0001', '--data-dir', dataDir], { stdout: () => undefined, stderr: (t) => (stderr += t), env: {} });
    other.exec('ROLLBACK');
    other.close();
    expect(code).toBe(1);
    expect(stderr).toMatch(/nothing was deleted.*try again/);
    const again = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
    expect(again.hasRun('cli-stay-0001')).toBe(true);
    again.close();
  });

  it('a running run is refused with a conflict that says why', async () => {
    const host = await open(dataFolder());
    const p = hostPage(host, 'p');
    const { workflows } = await p.ok('workspace.demo', {});
    const { run_id } = await p.ok('run.start', { workflow: workflows[0]!, overrides: {} });
    const refused = await p.call('runs.delete', { run_ids: [run_id] });
    expect(refused).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(refused.ok ? '' : refused.error.message).toMatch(/is running/);
    await p.ok('run.cancel', { run_id });
  });
});

describe('importing runs', () => {
  it('imports a trace in chunks; event ids already there and runs the journal held before are skipped', async () => {
    const host = await open(dataFolder());
    const p = hostPage(host, 'p');
    await p.ok('events.subscribe', {});
    const held = await runEcho(p, 'held');
    const heldEvents = p.events.filter((e) => e.run_id === held);
    const other = recordedRun('imported-run-1', 'imported', 0);
    // A run split across two chunks of one import comes in whole; the held run's events are skipped.
    expect(await p.ok('runs.import', { import_id: 'file-1', events: [other[0]!, heldEvents[0]!] })).toEqual({ imported: 1, repeated: 1, held: 0, skipped: 1 });
    expect(await p.ok('runs.import', { import_id: 'file-1', events: [other[1]!] })).toEqual({ imported: 1, repeated: 0, held: 0, skipped: 0 });
    // The same file again: nothing new.
    expect(await p.ok('runs.import', { import_id: 'file-2', events: other })).toEqual({ imported: 0, repeated: 2, held: 0, skipped: 2 });
    await expect.poll(() => p.events.filter((e) => e.run_id === 'imported-run-1').length).toBe(2);
    expect(p.events.filter((e) => e.run_id === held)).toEqual(heldEvents);
  });

  it('a deleted run imported again is back for good: a page resubscribing is not told to delete it', async () => {
    const host = await open(dataFolder());
    const p = hostPage(host, 'p');
    await p.ok('events.subscribe', {});
    const run = recordedRun('imported-run-2', 'imported', 0);
    await p.ok('runs.import', { import_id: 'one', events: run });
    await p.ok('runs.delete', { run_ids: ['imported-run-2'] });
    expect(await p.ok('runs.import', { import_id: 'two', events: run })).toEqual({ imported: 2, repeated: 0, held: 0, skipped: 0 });
    const q = hostPage(host, 'q');
    expect(await q.ok('events.subscribe', { journal: (await p.ok('events.subscribe', {})).journal, after: 1 })).not.toHaveProperty('deleted');
    expect(q.deleted).toEqual([]);
  });
});

describe('imported runs that never finished', () => {
  const unfinished = (runId: string) => recordedRun(runId, 'imported', 0).slice(0, 1);
  const finishedOf = (events: readonly RunEvent[], runId: string) => events.filter((e) => e.run_id === runId && e.type === 'run.finished');

  it('an imported unfinished run is never called interrupted by a host stop: after a restart it is closed as imported unfinished', async () => {
    const dataDir = dataFolder();
    const host = await open(dataDir);
    const p = hostPage(host, 'p');
    await p.ok('events.subscribe', {});
    expect(await p.ok('runs.import', { import_id: 'half', events: unfinished('imported-open-1') })).toEqual({ imported: 1, repeated: 0, held: 0, skipped: 0 });
    await host.close();

    const again = await open(dataDir);
    const q = hostPage(again, 'q');
    await q.ok('events.subscribe', {});
    await expect.poll(() => finishedOf(q.events, 'imported-open-1').length).toBe(1);
    const [end] = finishedOf(q.events, 'imported-open-1');
    expect(end).toMatchObject({ status: 'interrupted', message: IMPORTED_UNFINISHED_MESSAGE, seq: 1, event_count: 2 });
    expect(q.events.some((e) => e.type === 'run.finished' && /host stopped/i.test(e.message ?? ''))).toBe(false);
    await again.close();
    // Closed once: a third start adds nothing.
    const third = await open(dataDir);
    const r = hostPage(third, 'r');
    await r.ok('events.subscribe', {});
    await expect.poll(() => r.events.length).toBe(2);
    expect(finishedOf(r.events, 'imported-open-1')).toHaveLength(1);
  });

  it('steward runs import closes an unfinished run as imported unfinished, and leaves a finished one as it was', async () => {
    const dataDir = dataFolder();
    const file = join(dataFolder(), 'trace.jsonl');
    writeFileSync(file, [...unfinished('cli-open-0001'), ...recordedRun('cli-done-0001', 'cli', 0)].map((e) => JSON.stringify(e)).join('\n') + '\n');
    let stdout = '';
    const code = await runCli(['runs', 'import', file, '--data-dir', dataDir], { stdout: (t) => (stdout += t), stderr: () => undefined, env: {} });
    expect(code).toBe(0);
    expect(stdout).toMatch(/1 run ended unfinished in the trace: closed as imported unfinished/);
    const journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
    const events = journal.read(0, 100).events;
    journal.close();
    expect(finishedOf(events, 'cli-open-0001')).toEqual([expect.objectContaining({ status: 'interrupted', message: IMPORTED_UNFINISHED_MESSAGE })]);
    expect(finishedOf(events, 'cli-done-0001')).toEqual([expect.objectContaining({ status: 'completed' })]);
  });
});

describe('retention', () => {
  it('a run past its trace profile\'s retention is gone after a restart, and a page that held it is told', async () => {
    const dataDir = dataFolder();
    const journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
    journal.append([
      ...recordedRun('old-run-0001', 'lean', 40, { days: 30 }),
      ...recordedRun('new-run-0001', 'lean', 1, { days: 30 }),
      ...recordedRun('forever-0001', 'keep', 400),
      ...recordedRun('counted-0001', 'counted', 3, { runs: 2 }),
      ...recordedRun('counted-0002', 'counted', 2, { runs: 2 }),
      ...recordedRun('counted-0003', 'counted', 1, { runs: 2 }),
    ]);
    const { id, head } = { id: journal.id, head: journal.head };
    journal.close();

    const host = await open(dataDir);
    const p = hostPage(host, 'p');
    expect(await p.ok('events.subscribe', { journal: id, after: head })).toMatchObject({ deleted: 2 });
    expect(p.deleted.sort()).toEqual(['counted-0001', 'old-run-0001']);
    const fresh = hostPage(host, 'fresh');
    await fresh.ok('events.subscribe', {});
    await expect.poll(() => new Set(fresh.events.map((e) => e.run_id)).size).toBe(4);
    expect([...new Set(fresh.events.map((e) => e.run_id))].sort()).toEqual(['counted-0002', 'counted-0003', 'forever-0001', 'new-run-0001']);
  });

  it('a child run goes with its parent and never on its own: the parent past its retention takes its child runs; a child past its own stays while its parent does', async () => {
    const dataDir = dataFolder();
    const journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
    journal.append([
      ...recordedWorkflowRun('greet-old-01', 'greet', 40, { days: 30 }),
      // Its child keeps for ever by its own profile: it goes with its parent all the same.
      ...recordedWorkflowRun('greet-old-01:hail', 'shout', 40, undefined, 'greet-old-01'),
      ...recordedWorkflowRun('greet-new-01', 'greet', 3, { days: 30 }),
      // Past its own retention (and one of two runs of "shout" kept 1): it stays while its parent does.
      ...recordedWorkflowRun('greet-new-01:hail', 'shout', 3, { days: 1, runs: 1 }, 'greet-new-01'),
      ...recordedWorkflowRun('shout-alone-1', 'shout', 0.1, { runs: 1 }),
    ]);
    const { id, head } = { id: journal.id, head: journal.head };
    journal.close();

    const host = await open(dataDir);
    const p = hostPage(host, 'p');
    expect(await p.ok('events.subscribe', { journal: id, after: head })).toMatchObject({ deleted: 2 });
    expect(p.deleted.sort()).toEqual(['greet-old-01', 'greet-old-01:hail']);
    const fresh = hostPage(host, 'fresh');
    await fresh.ok('events.subscribe', {});
    await expect.poll(() => new Set(fresh.events.map((e) => e.run_id)).size).toBe(3);
    expect([...new Set(fresh.events.map((e) => e.run_id))].sort()).toEqual(['greet-new-01', 'greet-new-01:hail', 'shout-alone-1']);
  });

  it('keep N runs: when a run finishes, the oldest of its workflow\'s runs beyond N go, and pages are told', async () => {
    const host = await open(dataFolder());
    const p = hostPage(host, 'p');
    await p.ok('events.subscribe', {});
    const agent = await quickAgent(p);
    const overrides = { trace: { include_tool_results: true, retention_runs: 1 } };
    const first = (await p.ok('run.start', { workflow: agent, overrides })).run_id;
    await expect.poll(() => p.events.some((e) => e.run_id === first && e.type === 'run.finished'), { timeout: 20_000 }).toBe(true);
    expect(p.events.find((e) => e.run_id === first && e.type === 'run.started')).toMatchObject({ retention: { runs: 1 } });
    const second = (await p.ok('run.start', { workflow: agent, overrides })).run_id;
    await expect.poll(() => p.deleted, { timeout: 20_000 }).toEqual([first]);
    const fresh = hostPage(host, 'fresh');
    await fresh.ok('events.subscribe', {});
    await expect.poll(() => fresh.events.some((e) => e.run_id === second && e.type === 'run.finished')).toBe(true);
    expect(fresh.events.some((e) => e.run_id === first)).toBe(false);
  });
});
