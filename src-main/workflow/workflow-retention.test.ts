import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { hostedEcho, hostedTriage } from '../../test-support/hosted-workflows';
import { hostPage, openTestHost } from '../../test-support/host-session';
import { tempFolder } from '../../test-support/temp-folder';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const dataFolder = () => tempFolder('steward-wf-retention-', cleanups);

const ended = (events: RunEvent[], runId: string) => events.some((e) => e.type === 'run.finished' && e.run_id === runId);

describe('retention of workflow runs (a trace profile on workflows.run)', () => {
  it('5 runs of a workflow with "keep 3 runs" leave the 3 newest after the fifth finishes, and after a restart', async () => {
    const dataDir = dataFolder();
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    await page.ok('workflows.save', { workflow: hostedEcho('echo') });
    const runIds: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const { run_id } = await page.ok('workflows.run', { id: 'echo', inputs: { name: `n${i}` }, trace: { include_tool_results: true, retention_runs: 3 }, trace_profile: { id: 'keep-3', name: 'Keep 3', version: 1 } });
      runIds.push(run_id);
      await expect.poll(() => ended(page.events, run_id), { timeout: 20_000 }).toBe(true);
    }
    const started = page.events.find((e) => e.type === 'workflow.started' && e.run_id === runIds[4]);
    expect(started).toMatchObject({ retention: { runs: 3 }, trace_profile: { id: 'keep-3', version: 1 } });
    // The two oldest were deleted (every page is told), the three newest kept.
    await expect.poll(() => [...page.deleted].sort(), { timeout: 10_000 }).toEqual(runIds.slice(0, 2).sort());
    const fresh = hostPage(host, 'fresh');
    await fresh.ok('events.subscribe', {});
    await expect.poll(() => new Set(fresh.events.filter((e) => e.type === 'workflow.started').map((e) => e.run_id))).toEqual(new Set(runIds.slice(2)));

    await host.close();
    const again = await openTestHost(dataDir, cleanups);
    const after = hostPage(again, 'after-restart');
    await after.ok('events.subscribe', {});
    await expect.poll(() => new Set(after.events.filter((e) => e.type === 'workflow.started').map((e) => e.run_id))).toEqual(new Set(runIds.slice(2)));
  }, 60_000);

  it('a waiting workflow run is never pruned, however many newer runs end; the workflow’s own trace profile choice applies without a trace in the request', async () => {
    const dataDir = dataFolder();
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    const { sandbox } = hostedTriage(dataDir);
    await page.ok('workspaces.register', { workspace: { id: 'triage', path: sandbox } });
    // A protected write nobody reviews: every run waits for a person to confirm it.
    const confirmWrite = HostedWorkflowGraph.parse({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'confirm-write',
      name: 'Confirm a write',
      workspace: 'triage',
      servers: [{ id: 'fs', server: 'filesystem', tools: ['write_file'] }],
      nodes: [
        { id: 'write', kind: 'tool', server: 'fs', tool: 'write_file', arguments: { path: 'note.md', content: 'x' } },
        { id: 'out', kind: 'output', fields: [{ name: 'written', type: 'text' }] },
      ],
      edges: [{ from: { node: 'write', port: 'text' }, to: { node: 'out', port: 'written' } }],
    });
    await page.ok('workflows.save', { workflow: confirmWrite });
    // The workflow's own choice of a trace profile the host keeps (as the app's panel saves it).
    const created_at = new Date().toISOString();
    await page.ok('profiles.save', {
      profiles: [{ origin: 'user', profile: { kind: 'trace', id: 'keep-1', name: 'Keep 1', version: 1, created_at, description: '', trace: { include_tool_results: true, retention_runs: 1 } } }],
      workflow_choices: [{ workflow_id: 'confirm-write', profiles: { trace: { id: 'keep-1', version: 1 } }, supervision_enabled: true, updated_at: created_at }],
    });
    const waitsFor = async (runId: string) => {
      await expect.poll(async () => (await page.ok('interventions.pending', {})).interventions.some((i) => i.run_id === runId), { timeout: 60_000 }).toBe(true);
      return (await page.ok('interventions.pending', {})).interventions.find((i) => i.run_id === runId);
    };
    const waiting = (await page.ok('workflows.run', { id: 'confirm-write' })).run_id;
    await waitsFor(waiting);
    expect(page.events.find((e) => e.type === 'workflow.started' && e.run_id === waiting)).toMatchObject({ retention: { runs: 1 }, trace_profile: { id: 'keep-1', name: 'Keep 1', version: 1 } });
    const rejected: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const { run_id } = await page.ok('workflows.run', { id: 'confirm-write' });
      const asked = await waitsFor(run_id);
      await expect.poll(async () => (await page.ok('interventions.answer', { run_id, intervention_id: asked?.id, answer: { action: 'decline' } })).resumed, { timeout: 10_000 }).toBe(true);
      await expect.poll(() => ended(page.events, run_id), { timeout: 20_000 }).toBe(true);
      rejected.push(run_id);
    }
    // Keep 1: the first rejected run goes once the second ends; the waiting one, older still, stays.
    await expect.poll(() => page.deleted, { timeout: 10_000 }).toEqual([rejected[0]]);
    await host.close();
    const again = await openTestHost(dataDir, cleanups);
    const after = hostPage(again, 'after-restart');
    await after.ok('events.subscribe', {});
    await expect.poll(() => new Set(after.events.filter((e) => e.type === 'workflow.started').map((e) => e.run_id))).toEqual(new Set([waiting, rejected[1]]));
    expect((await after.ok('interventions.pending', {})).interventions.map((i) => i.run_id)).toEqual([waiting]);
  }, 120_000);
});
