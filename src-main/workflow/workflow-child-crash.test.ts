import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import type { Intervention } from '@shared/contracts/intervention';
import { ensureBuilt } from '../../test-support/ensure-built';
import { escalatingWithSlowChild, slowThought, storedIn } from '../../test-support/escalating-workflow';
import { connectHost, startHostProcess, waitFor } from '../../test-support/host-process';
import { tempFolder } from '../../test-support/temp-folder';

/**
 * A crash (SIGKILL of the browser-run host, a real process) while a workflow waits for a person at one
 * node and a workflow node's child run goes on at another. The child's first start is closed as
 * interrupted at the restart; the answer starts it again as a run of its own (`…:slow~2`), so the
 * history refuses nothing and the parent completes with the child's outputs. Before, the child started
 * again under its first id, into a run already closed: every event it recorded was refused.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

describe('a host killed while a workflow waits and its child run goes on', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it('closes the child as interrupted after the restart; the answer starts it again as a new run, nothing is refused, and the run completes', async () => {
    const dataDir = tempFolder('steward-child-crash-', cleanups);
    const workspace = join(dataDir, 'workspaces', 'share');
    mkdirSync(workspace, { recursive: true });

    const first = await startHostProcess(dataDir);
    cleanups.push(() => first.stop('SIGKILL'));
    const page = await connectHost(first);
    cleanups.push(() => page.close());
    await page.request('events.subscribe', {});
    await page.request('workspaces.register', { workspace: { id: 'share', path: workspace } });
    await page.request('workflows.save', { workflow: slowThought(12_000, 'pondered') });
    const parent = storedIn(escalatingWithSlowChild(workspace, 12_000), 'share');
    await page.request('workflows.save', { workflow: parent });
    const { run_id } = (await page.request('workflows.run', { id: parent.id, inputs: { name: 'shared.md' } })) as { run_id: string };
    const childId = `${run_id}:slow`;
    await waitFor(() => page.events.some((e) => e.run_id === run_id && e.type === 'intervention.requested'), 30_000, 'the question');
    await waitFor(() => page.events.some((e) => e.run_id === childId && e.type === 'workflow.started'), 30_000, 'the child run');
    // The checkpoint is kept again at most a second after a change: past that, it holds the child as running.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await first.stop('SIGKILL');

    const second = await startHostProcess(dataDir);
    cleanups.push(() => second.stop());
    const again = await connectHost(second);
    cleanups.push(() => again.close());
    await again.request('events.subscribe', {});
    const { interventions } = (await again.request('interventions.pending', {})) as { interventions: Intervention[] };
    expect(interventions.map((i) => i.run_id)).toEqual([run_id]);
    const runEvents = async (id: string) => ((await again.request('runs.events', { run_id: id })) as { events: RunEvent[] }).events;
    expect((await runEvents(childId)).at(-1)).toMatchObject({ type: 'run.finished', status: 'interrupted' });

    await again.request('interventions.answer', { run_id, intervention_id: interventions[0]?.id ?? '', answer: { action: 'approve' } });
    await waitFor(() => again.events.some((e) => e.run_id === run_id && e.type === 'run.finished'), 60_000, 'the run’s end');
    expect(again.events.find((e) => e.run_id === run_id && e.type === 'run.finished')).toMatchObject({ status: 'completed', outputs: { said: 'shared it', thought: 'thought' } });
    const restarted = await runEvents(`${childId}~2`);
    expect(restarted.map((e) => e.seq)).toEqual(restarted.map((_, i) => i));
    expect(restarted.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    const parentEvents = await runEvents(run_id);
    expect(parentEvents.flatMap((e) => (e.type === 'subworkflow.started' ? [e.child_run_id] : []))).toEqual([childId, `${childId}~2`]);
    expect(parentEvents.flatMap((e) => (e.type === 'subworkflow.finished' ? [[e.child_run_id, e.status]] : []))).toEqual([
      [childId, 'interrupted'],
      [`${childId}~2`, 'completed'],
    ]);
    expect(second.stderr?.()).not.toContain('refused');
    expect(existsSync(join(workspace, 'pondered'))).toBe(true);
    expect(readFileSync(join(workspace, 'shared.md'), 'utf8')).toBe('shared');
  }, 150_000);
});
