import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostedEcho, hostedTriage } from '../../test-support/hosted-workflows';
import { WorkflowStore } from '../workflow/workflow-store';
import { createHost } from './create-host';
import { hostPage } from '../../test-support/host-session';

/** Issue 8: the user's workflow graphs, kept by the host in its data folder, driven through `handle`. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function startHost() {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-wf-host-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const logs: string[] = [];
  const host = await createHost({ dataDir, shell: 'browser', log: (line) => logs.push(line) });
  cleanups.push(() => host.close());
  const { events, call, ok } = hostPage(host);
  await ok('events.subscribe', {});
  return { dataDir, logs, events, call, ok };
}

const echo = hostedEcho;

describe("the host keeps the user's workflows", () => {
  it('a saved workflow is listed and got back whole, and runs to completion: an invocation event per node, the reviewed report on disk', async () => {
    const h = await startHost();
    const { workflow, sandbox } = hostedTriage(h.dataDir);
    await h.ok('workspaces.register', { workspace: { id: 'triage', path: sandbox } });
    const saved = await h.ok('workflows.save', { workflow });
    expect(saved.id).toBe('folder-triage');
    const { workflows } = await h.ok('workflows.list', {});
    expect(workflows).toEqual([{ id: 'folder-triage', name: workflow.name, description: workflow.description, node_count: workflow.nodes.length, updated_at: saved.updated_at }]);
    expect(await h.ok('workflows.get', { id: 'folder-triage' })).toEqual({ workflow, updated_at: saved.updated_at });

    const { run_id } = await h.ok('workflows.run', { id: 'folder-triage' });
    await expect.poll(() => h.events.some((e) => e.type === 'run.finished' && e.run_id === run_id), { timeout: 60_000 }).toBe(true);
    const finished = h.events.find((e) => e.type === 'run.finished');
    expect(finished).toMatchObject({ status: 'completed' });
    const done = new Set(h.events.flatMap((e) => (e.type === 'node.invocation' && e.status === 'done' ? [e.node] : [])));
    expect([...done].sort()).toEqual(workflow.nodes.map((n) => n.id).sort());
    expect(readFileSync(join(sandbox, 'triage-report.md'), 'utf8')).toContain('# Folder triage');
  }, 90_000);

  it('a workflow another process stored (the CLI) is listed by the running host at once', async () => {
    const h = await startHost();
    new WorkflowStore(h.dataDir).save(echo('from-cli'));
    expect((await h.ok('workflows.list', {})).workflows.map((w) => w.id)).toEqual(['from-cli']);
  });

  it('a save over a version someone else changed is refused as a conflict; a rename removes the old id; delete says whether it removed one', async () => {
    const h = await startHost();
    const first = await h.ok('workflows.save', { workflow: echo('a') });
    await h.ok('workflows.save', { workflow: echo('a', { name: 'Changed elsewhere' }), if_updated_at: first.updated_at });
    expect(await h.call('workflows.save', { workflow: echo('a', { name: 'Stale' }), if_updated_at: first.updated_at })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    const current = await h.ok('workflows.get', { id: 'a' });
    expect(current.workflow.name).toBe('Changed elsewhere');
    await h.ok('workflows.save', { workflow: echo('b'), replaces: 'a', if_updated_at: current.updated_at });
    expect((await h.ok('workflows.list', {})).workflows.map((w) => w.id)).toEqual(['b']);
    expect(await h.call('workflows.get', { id: 'a' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await h.ok('workflows.delete', { id: 'b' })).toEqual({ deleted: true });
    expect(await h.ok('workflows.delete', { id: 'b' })).toEqual({ deleted: false });
  });

  it('running an id nobody stored is not_found', async () => {
    const h = await startHost();
    expect(await h.call('workflows.run', { id: 'nothing', inputs: {} })).toMatchObject({ ok: false, error: { code: 'not_found', message: expect.stringContaining('"nothing"') } });
  });

  it('a graph with problems is refused as invalid params naming each problem by node and port, and nothing runs', async () => {
    const h = await startHost();
    const broken = echo('broken', {
      nodes: echo('x').nodes.map((n) => (n.id === 'say' ? { ...n, template: 'hello {{name}} from {{place}}' } : n)),
      edges: [{ from: { node: 'say', port: 'output' }, to: { node: 'out', port: 'said' } }],
    });
    await h.ok('workflows.save', { workflow: broken });
    const reply = await h.call('workflows.run', { id: 'broken', inputs: { name: 'x' } });
    expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    if (reply.ok) return;
    expect(reply.error.message).toContain('node say port name:');
    expect(reply.error.message).toContain('node say port place:');
    expect(h.events.filter((e) => e.type === 'workflow.started')).toEqual([]);
  });

  it('a workflow using a server that is not registered is refused by the server\'s name on the node that uses it, and never starts', async () => {
    const h = await startHost();
    const workflow = echo('mail', {
      servers: [{ id: 'post', server: 'imap-mail' }],
      nodes: [...echo('x').nodes, { id: 'send', kind: 'tool', server: 'post', tool: 'send', inputs: [{ name: 'text', type: 'text' }], arguments: { body: '{{text}}' } }, { id: 'out2', kind: 'output', fields: [{ name: 'sent', type: 'any' }] }],
      edges: [...echo('x').edges, { from: { node: 'say', port: 'output' }, to: { node: 'send', port: 'text' } }],
    });
    await h.ok('workflows.save', { workflow });
    const reply = await h.call('workflows.run', { id: 'mail', inputs: { name: 'x' } });
    expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_params', message: expect.stringMatching(/node send: uses server "imap-mail", which is not registered/) } });
    expect(h.events.filter((e) => e.type === 'workflow.started')).toEqual([]);
  });

  it("the run's input problems come back as invalid params with their message, not as a host error", async () => {
    const h = await startHost();
    await h.ok('workflows.save', { workflow: echo('e') });
    expect(await h.call('workflows.run', { id: 'e', inputs: {} })).toMatchObject({ ok: false, error: { code: 'invalid_params', message: expect.stringContaining('input name is required') } });
    expect(await h.call('workflows.run', { id: 'e', inputs: { name: 3 } })).toMatchObject({ ok: false, error: { code: 'invalid_params', message: expect.stringContaining('input name must be a text') } });
    const { run_id } = await h.ok('workflows.run', { id: 'e', inputs: { name: 'Bo' } });
    await expect.poll(() => h.events.find((e) => e.type === 'run.finished' && e.run_id === run_id), { timeout: 20_000 }).toMatchObject({ status: 'completed', outputs: { said: 'hello Bo' } });
  });
});
