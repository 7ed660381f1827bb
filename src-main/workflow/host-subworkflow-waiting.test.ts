import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import type { Intervention } from '@shared/contracts/intervention';
import type { ResponseFrame } from '@shared/contracts/host-api';
import type { HostedWorkflowGraphInput } from '@shared/workflow/hosted-graph';
import { childRunsOf } from '@shared/workflow/child-runs';
import { createHost } from '../composition/create-host';
import type { HostSession } from '../composition/host-types';
import { HostRegistry } from '../registry/host-registry';
import { WorkflowStore } from './workflow-store';

/**
 * Issue 29 through the real host (as the app runs it): a workflow node whose child waits for a
 * person makes the parent wait; the host lists the question, counts the child run as waiting (never
 * interrupted), and the person's answer resumes the child inside the parent to its end.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const child: HostedWorkflowGraphInput = {
  format: 'steward/v1',
  kind: 'workflow',
  id: 'save-note',
  name: 'Save a note',
  workspace: 'notes',
  servers: [{ id: 'fs', server: 'filesystem' }],
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }] },
    { id: 'save', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [{ name: 'text', type: 'text' }], arguments: { path: 'note.md', content: '{{text}}' } },
    { id: 'out', kind: 'output', fields: [{ name: 'saved', type: 'text' }] },
  ],
  edges: [
    { from: { node: 'in', port: 'text' }, to: { node: 'save', port: 'text' } },
    { from: { node: 'save', port: 'text' }, to: { node: 'out', port: 'saved' } },
  ],
};

const parent: HostedWorkflowGraphInput = {
  format: 'steward/v1',
  kind: 'workflow',
  id: 'keeper',
  name: 'Keeper',
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'note', type: 'text' }] },
    { id: 'keep', kind: 'workflow', workflow: 'save-note', inputs: [{ name: 'text', type: 'text' }], outputs: [{ name: 'saved', type: 'text' }] },
    { id: 'out', kind: 'output', fields: [{ name: 'saved', type: 'text' }] },
  ],
  edges: [
    { from: { node: 'in', port: 'note' }, to: { node: 'keep', port: 'text' } },
    { from: { node: 'keep', port: 'saved' }, to: { node: 'out', port: 'saved' } },
  ],
};

describe('the host with a workflow node whose child waits for a person', () => {
  it('the parent waits with the child’s question, the child is waiting too, and the answer resumes it to the end', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-subwf-host-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const notes = join(dataDir, 'notes');
    mkdirSync(notes);
    new HostRegistry(dataDir).putWorkspace({ id: 'notes', label: 'Notes', path: notes, in_data_folder: true });
    const store = new WorkflowStore(dataDir);
    store.save(child as Parameters<WorkflowStore['save']>[0]);
    store.save(parent as Parameters<WorkflowStore['save']>[0]);

    const host = await createHost({ dataDir, shell: 'browser' });
    cleanups.push(() => host.close());
    const events: RunEvent[] = [];
    const session: HostSession = { id: 'page', push: (frame) => (frame.kind === 'events' ? events.push(...frame.events) : 0) };
    let nextId = 1;
    const call = async (method: string, params: unknown): Promise<unknown> => {
      const frame: ResponseFrame = await host.handle({ kind: 'request', id: nextId++, method, params }, session);
      if (!frame.ok) throw new Error(`${frame.error.code}: ${frame.error.message}`);
      return frame.result;
    };
    await call('events.subscribe', {});
    const { problems } = (await call('workflows.validate', { workflow: parent })) as { problems: unknown[] };
    expect(problems).toEqual([]);
    const { run_id } = (await call('workflows.run', { id: 'keeper', inputs: { note: 'Buy milk.' } })) as { run_id: string };

    let pending: Intervention[] = [];
    await expect
      .poll(async () => {
        pending = ((await call('interventions.pending', {})) as { interventions: Intervention[] }).interventions;
        return pending.length;
      }, { timeout: 20_000 })
      .toBe(1);
    expect(pending[0]).toMatchObject({ run_id, kind: 'confirmation' });
    const childRun = `${run_id}:keep`;
    await expect.poll(() => events.some((e) => e.run_id === run_id && e.type === 'subworkflow.finished'), { timeout: 20_000 }).toBe(true);
    expect(childRunsOf(events.filter((e) => e.run_id === run_id))[0]).toMatchObject({ child_run_id: childRun, status: 'waiting' });

    await call('interventions.answer', { run_id, intervention_id: pending[0]?.id, answer: { action: 'approve' } });
    await expect.poll(() => events.find((e) => e.run_id === run_id && e.type === 'run.finished'), { timeout: 20_000 }).toMatchObject({ status: 'completed' });
    expect(events.find((e) => e.run_id === childRun && e.type === 'run.finished')).toMatchObject({ status: 'completed' });
    expect(readFileSync(join(notes, 'note.md'), 'utf8')).toBe('Buy milk.');
    // Nothing of the child run was closed as interrupted meanwhile.
    expect(events.some((e) => e.run_id === childRun && e.type === 'run.finished' && e.status === 'interrupted')).toBe(false);
  });
});
