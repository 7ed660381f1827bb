import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { runDifferences } from '@shared/replay/compare-runs';
import { workflowDifferences } from '@shared/replay/compare-workflow-runs';
import { hostedTriage } from '../../test-support/hosted-workflows';
import { hostPage } from '../../test-support/host-session';
import { createHost } from '../composition/create-host';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function openHost() {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-replay-host-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const host = await createHost({ dataDir, shell: 'browser', log: () => undefined });
  cleanups.push(() => host.close());
  const page = hostPage(host);
  await page.ok('events.subscribe', {});
  const { workflows } = await page.ok('workspace.demo', {});
  const demo = (id: string): HostedWorkflow => {
    const found = workflows.find((w) => w.id === id);
    if (!found) throw new Error(`no demo ${id}`);
    return found;
  };
  const eventsOf = (runId: string) => page.events.filter((e) => e.run_id === runId);
  const finished = async (runId: string) => {
    await expect.poll(() => eventsOf(runId).some((e) => e.type === 'run.finished'), { timeout: 60_000 }).toBe(true);
    return eventsOf(runId);
  };
  const startedOf = (events: RunEvent[]) => events.find((e): e is RunEventOf<'run.started'> => e.type === 'run.started');
  return { dataDir, host, page, demo, eventsOf, finished, startedOf };
}

/** A run still closing its waiting round takes no answer yet (resumed: false): asked until it does. */
async function approve(h: Awaited<ReturnType<typeof openHost>>, runId: string, interventionId: string | undefined) {
  await expect.poll(async () => (await h.page.ok('interventions.answer', { run_id: runId, intervention_id: interventionId, answer: { action: 'approve' } })).resumed, { timeout: 10_000 }).toBe(true);
}

describe('runs.replay: a recorded run runs again on its recorded answers', () => {
  it('a demo run replayed dry makes the same decisions round by round, executes nothing, and is recorded as a replay of it', async () => {
    const h = await openHost();
    // (scs-summary is replayed live below: its monitor was asked because a read failed, which a dry run never does.)
    for (const id of ['notes-assistant', 'guarded-writes']) {
      const { run_id } = await h.page.ok('run.start', { workflow: h.demo(id) });
      const recorded = await h.finished(run_id);
      const summary = join(h.dataDir, 'demo', id);
      const before = readFileSync(join(h.startedOf(recorded)?.workspace ?? summary, 'meeting-notes.md'), 'utf8');

      const replay = await h.page.ok('runs.replay', { run_id, tools: 'dry_run' });
      expect(replay.run_id).not.toBe(run_id);
      const replayed = await h.finished(replay.run_id);
      const started = h.startedOf(replayed);
      expect(started).toMatchObject({ replay_of: run_id, dry_run: true, models: { student: 'replay', teacher: 'replay' } });
      expect(runDifferences(recorded, replayed), id).toEqual([]);
      const executions = replayed.flatMap((e) => (e.type === 'tool.executed' ? [e.execution.content] : []));
      expect(executions.length, id).toBeGreaterThan(0);
      expect(executions.every((c) => c.startsWith('(dry run:')), id).toBe(true);
      expect(readFileSync(join(h.startedOf(recorded)?.workspace ?? summary, 'meeting-notes.md'), 'utf8')).toBe(before);
      // The recorded run's end and the replay's end agree too.
      const end = (events: RunEvent[]) => events.find((e) => e.type === 'run.finished');
      expect(end(replayed)).toMatchObject({ type: 'run.finished', status: (end(recorded) as RunEventOf<'run.finished'>).status });
    }
  }, 120_000);

  it('a live replay executes the recorded decisions again through the boundary, and a call that needs a person waits for one', async () => {
    const h = await openHost();
    const { run_id } = await h.page.ok('run.start', { workflow: h.demo('ask-a-human') });
    // The demo escalates to a person: approve, and the run finishes.
    await expect.poll(async () => (await h.page.ok('interventions.pending', {})).interventions.length, { timeout: 60_000 }).toBe(1);
    const [asked] = (await h.page.ok('interventions.pending', {})).interventions;
    await approve(h, run_id, asked?.id);
    const recorded = await h.finished(run_id);
    const shared = join(h.startedOf(recorded)?.workspace ?? '', 'shared.md');
    const written = readFileSync(shared, 'utf8');
    writeFileSync(shared, 'changed since the run\n');

    const replay = await h.page.ok('runs.replay', { run_id, tools: 'live' });
    // The replay reaches the same escalation: it waits for a person, nothing decided for them.
    await expect.poll(async () => (await h.page.ok('interventions.pending', {})).interventions.map((i) => i.run_id), { timeout: 60_000 }).toEqual([replay.run_id]);
    expect(readFileSync(shared, 'utf8')).toBe('changed since the run\n');
    const [again] = (await h.page.ok('interventions.pending', {})).interventions;
    await approve(h, replay.run_id, again?.id);
    const replayed = await h.finished(replay.run_id);
    expect(h.startedOf(replayed)).toMatchObject({ replay_of: run_id, dry_run: false });
    expect(runDifferences(recorded, replayed)).toEqual([]);
    // Live: the recorded write ran again.
    expect(readFileSync(shared, 'utf8')).toBe(written);

    // SCS: the committee's plan and the monitor's decisions are replayed too.
    const scs = await h.page.ok('run.start', { workflow: h.demo('scs-summary') });
    const scsRecorded = await h.finished(scs.run_id);
    const summary = join(h.startedOf(scsRecorded)?.workspace ?? '', 'summary.md');
    rmSync(summary);
    const scsReplay = await h.page.ok('runs.replay', { run_id: scs.run_id, tools: 'live' });
    const scsReplayed = await h.finished(scsReplay.run_id);
    expect(runDifferences(scsRecorded, scsReplayed)).toEqual([]);
    expect(scsReplayed.filter((e) => e.type === 'scs.transcript').length).toBe(scsRecorded.filter((e) => e.type === 'scs.transcript').length);
    expect(readFileSync(summary, 'utf8')).toContain('Bo: migration guide');
  }, 120_000);

  it('a workflow run replays dry on the workflow the host keeps: the same decisions per node invocation, nothing written; a workflow changed since is refused, by node', async () => {
    const h = await openHost();
    const { workflow, sandbox } = hostedTriage(h.dataDir);
    await h.page.ok('workspaces.register', { workspace: { id: 'triage', path: sandbox } });
    await h.page.ok('workflows.save', { workflow });
    const graph = await h.page.ok('workflows.run', { id: 'folder-triage' });
    const recorded = await h.finished(graph.run_id);
    rmSync(join(sandbox, 'triage-report.md'));
    const replay = await h.page.ok('runs.replay', { run_id: graph.run_id, tools: 'dry_run' });
    expect(replay.gaps).toEqual([]);
    const replayed = await h.finished(replay.run_id);
    expect(replayed.find((e) => e.type === 'workflow.started')).toMatchObject({ replay_of: graph.run_id, dry_run: true });
    expect(workflowDifferences(recorded, replayed)).toEqual([]);
    expect(replayed.find((e) => e.type === 'run.finished')).toMatchObject({ status: 'completed' });
    expect(existsSync(join(sandbox, 'triage-report.md'))).toBe(false);
    // The workflow lost a node since: its run cannot be repeated.
    const { updated_at } = await h.page.ok('workflows.get', { id: 'folder-triage' });
    // (What it checked goes straight on.)
    const edges = workflow.edges.filter((e) => e.to.node !== 'classified').map((e) => (e.from.node === 'classified' ? { ...e, from: { node: 'gather', port: 'list' } } : e));
    const fewer = { ...workflow, nodes: workflow.nodes.filter((n) => n.id !== 'classified'), edges };
    await h.page.ok('workflows.save', { workflow: fewer, if_updated_at: updated_at });
    expect(await h.page.call('runs.replay', { run_id: graph.run_id, tools: 'dry_run' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_params', message: expect.stringMatching(/workflow "folder-triage" changed since run .*node classified is gone/) },
    });
  }, 120_000);

  it('says why a run cannot be replayed: a run it does not hold, a workflow it does not know unless the page sends it, a workflow changed since', async () => {
    const h = await openHost();
    expect(await h.page.call('runs.replay', { run_id: 'no-such-run', tools: 'dry_run' })).toMatchObject({ ok: false, error: { code: 'not_found', message: 'no events of run "no-such-run" were found' } });

    // A workflow the page made: the host knows it only when the page sends it along.
    const mine: HostedWorkflow = { ...h.demo('notes-assistant'), id: 'my-notes', name: 'My notes' };
    const { run_id } = await h.page.ok('run.start', { workflow: mine });
    const recorded = await h.finished(run_id);
    expect(await h.page.call('runs.replay', { run_id, tools: 'dry_run' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_params', message: expect.stringMatching(/workflow "my-notes" is not known here/) },
    });
    expect(await h.page.call('runs.replay', { run_id, tools: 'dry_run', workflow: { ...mine, task: 'Another task.' } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_params', message: expect.stringMatching(/workflow "my-notes" changed since run .*its task/) },
    });
    const replay = await h.page.ok('runs.replay', { run_id, tools: 'dry_run', workflow: mine });
    expect(runDifferences(recorded, await h.finished(replay.run_id))).toEqual([]);
  }, 120_000);
});
