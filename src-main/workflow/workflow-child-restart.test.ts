import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { hostPage, openTestHost } from '../../test-support/host-session';
import { memorySealKeys } from '../../test-support/seal-keys-double';
import { tempFolder } from '../../test-support/temp-folder';

/**
 * Workflows as agents (issue 29) across a host restart: a parent whose workflow node waits because
 * its child run waits for a person, the parent holding a value bound for a sensitive argument, so its
 * checkpoint is sealed (issue 27) with the child's inside. A fresh host on the same data folder shows
 * the parent waiting with the child's question, never closes the child as interrupted, and the answer
 * resumes the child and then the parent. Real host, history database, filesystem MCP server; the
 * teacher is a replay script (the model double at the boundary); the keychain is the in-memory double.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const ACCEPT = { json: { verdict: 'accept', reason_codes: [], explanation: 'Makes the folder in the workspace.' } };

/** The child: writes a note with no teacher to review it, so only a person may allow it. */
const saveNote = HostedWorkflowGraph.parse({
  format: 'steward/v1',
  kind: 'workflow',
  id: 'save-note',
  name: 'Save a note',
  workspace: 'box',
  servers: [{ id: 'fs', server: 'filesystem', tools: ['write_file'] }],
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }] },
    { id: 'save', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [{ name: 'text', type: 'text' }], arguments: { path: 'note.md', content: '{{text}}' } },
    { id: 'out', kind: 'output', fields: [{ name: 'saved', type: 'text' }] },
  ],
  edges: [
    { from: { node: 'in', port: 'text' }, to: { node: 'save', port: 'text' } },
    { from: { node: 'save', port: 'text' }, to: { node: 'out', port: 'saved' } },
  ],
});

/** The parent: runs the child, then makes a folder named by the PIN (a sensitive argument), reviewed by its teacher. */
const filed = HostedWorkflowGraph.parse({
  format: 'steward/v1',
  kind: 'workflow',
  id: 'file-note',
  name: 'File a note',
  workspace: 'box',
  servers: [{ id: 'fs', server: 'filesystem', tools: ['create_directory'] }],
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'notes', type: 'text' }, { name: 'pin', type: 'text' }] },
    { id: 'sum', kind: 'workflow', workflow: 'save-note', inputs: [{ name: 'text', type: 'text' }], outputs: [{ name: 'saved', type: 'text' }] },
    {
      id: 'mk',
      kind: 'tool',
      server: 'fs',
      tool: 'create_directory',
      inputs: [{ name: 'pin', type: 'text' }, { name: 'saved', type: 'text' }],
      arguments: { path: 'drawer-{{pin}}' },
      review: { teacher: { provider: 'script' }, script: { teacher: [ACCEPT] } },
    },
    { id: 'out', kind: 'output', fields: [{ name: 'saved', type: 'text' }, { name: 'made', type: 'text' }] },
  ],
  edges: [
    { from: { node: 'in', port: 'notes' }, to: { node: 'sum', port: 'text' } },
    { from: { node: 'sum', port: 'saved' }, to: { node: 'mk', port: 'saved' } },
    { from: { node: 'in', port: 'pin' }, to: { node: 'mk', port: 'pin' } },
    { from: { node: 'sum', port: 'saved' }, to: { node: 'out', port: 'saved' } },
    { from: { node: 'mk', port: 'text' }, to: { node: 'out', port: 'made' } },
  ],
});

describe('a parent waiting on its waiting child, its checkpoint sealed', () => {
  it('after a host restart is shown waiting with the child’s question (neither run interrupted), and the answer resumes the child, then the parent', async () => {
    const dataDir = tempFolder('steward-child-restart-', cleanups);
    const box = join(dataDir, 'workspaces', 'box');
    mkdirSync(box, { recursive: true });
    const keychain = new Map<string, string>();

    const first = await openTestHost(dataDir, cleanups, { sealKeys: memorySealKeys(keychain) });
    const before = hostPage(first);
    await before.ok('events.subscribe', {});
    await before.ok('workspaces.register', { workspace: { id: 'box', path: box } });
    // The folder's name is sensitive: the parent holds the PIN while it waits, so its checkpoint is sealed.
    await before.ok('effects.set', { server: 'filesystem', tool: 'create_directory', effect: { effect: 'reversible_write', requires_user_confirmation: false, idempotency_supported: true, sensitive_arguments: ['path'] } });
    await before.ok('workflows.save', { workflow: saveNote });
    await before.ok('workflows.save', { workflow: filed });

    const pin = `pin-${Math.random().toString(36).slice(2, 12)}`;
    const { run_id } = await before.ok('workflows.run', { id: 'file-note', inputs: { notes: 'Buy milk.', pin } });
    const child = `${run_id}:sum`;
    await expect.poll(async () => (await before.ok('interventions.pending', {})).interventions.length, { timeout: 60_000 }).toBe(1);
    const [asked] = (await before.ok('interventions.pending', {})).interventions;
    expect(asked).toMatchObject({ run_id, kind: 'confirmation' });
    await first.close();

    // The checkpoint on disk holds the child only sealed: its id is all that is in the clear.
    const fresh = await openTestHost(dataDir, cleanups, { sealKeys: memorySealKeys(keychain) });
    const page = hostPage(fresh);
    await page.ok('events.subscribe', {});
    const { interventions } = await page.ok('interventions.pending', {});
    expect(interventions).toHaveLength(1);
    expect(interventions[0]).toMatchObject({ id: asked?.id, run_id, kind: 'confirmation', reason: asked?.reason });
    expect(JSON.stringify(interventions)).not.toContain(pin);

    const rows = (await page.ok('runs.list', {})).runs;
    expect(rows.find((r) => r.run_id === run_id)?.status).toBe('waiting');
    // The child is not an orphan: not closed as interrupted, still waiting with its parent.
    expect(rows.find((r) => r.run_id === child)?.status).toBe('waiting');
    const childEvents = async () => (await page.ok('runs.events', { run_id: child })).events;
    expect((await childEvents()).some((e) => e.type === 'run.finished')).toBe(false);

    expect(await page.ok('interventions.answer', { run_id, intervention_id: asked?.id ?? '', answer: { action: 'approve' } })).toEqual({ resumed: true });
    const finished = (id: string) => page.events.find((e): e is Extract<RunEvent, { type: 'run.finished' }> => e.type === 'run.finished' && e.run_id === id);
    await expect.poll(() => finished(run_id), { timeout: 60_000 }).toBeDefined();
    expect(finished(run_id)?.status, finished(run_id)?.message).toBe('completed');
    // The child finished first (it ran on from its own checkpoint), then the parent went on to its next node.
    const childEnd = (await childEvents()).find((e) => e.type === 'run.finished');
    expect(childEnd).toMatchObject({ status: 'completed' });
    expect(readFileSync(join(box, 'note.md'), 'utf8')).toBe('Buy milk.');
    expect(readdirSync(box).filter((f) => f.startsWith('drawer-'))).toHaveLength(1);
    expect(existsSync(join(box, `drawer-${pin}`))).toBe(true);
  }, 120_000);
});
