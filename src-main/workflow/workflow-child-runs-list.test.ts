import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostedWorkflowGraphInput } from '@shared/workflow/hosted-graph';
import { EventJournal } from '../events/event-journal';
import { runCli } from '../shells/cli/cli';
import { WorkflowStore } from './workflow-store';

/**
 * Child runs in the history (issue 29), from a terminal: `steward run` of a workflow that runs a stored
 * workflow; `steward runs list` shows the child under its parent and the parent's count of child runs,
 * `steward runs show` takes the parent's id start, search finds the child, and deleting the parent
 * deletes its child with it, saying so. The real CLI, store and history database; no model is asked.
 */
const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() as string, { recursive: true, force: true });
});

const shout: HostedWorkflowGraphInput = {
  format: 'steward/v1',
  kind: 'workflow',
  id: 'shout',
  name: 'Shout',
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }] },
    { id: 'loud', kind: 'template', inputs: [{ name: 'text', type: 'text' }], template: '{{text}}!' },
    { id: 'out', kind: 'output', fields: [{ name: 'loud', type: 'text' }] },
  ],
  edges: [
    { from: { node: 'in', port: 'text' }, to: { node: 'loud', port: 'text' } },
    { from: { node: 'loud', port: 'output' }, to: { node: 'out', port: 'loud' } },
  ],
};

const greet = {
  format: 'steward/v1',
  kind: 'workflow',
  id: 'greet',
  name: 'Greet',
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'who', type: 'text' }] },
    { id: 'hail', kind: 'workflow', workflow: 'shout', inputs: [{ name: 'text', type: 'text' }], outputs: [{ name: 'loud', type: 'text' }] },
    { id: 'out', kind: 'output', fields: [{ name: 'greeting', type: 'text' }] },
  ],
  edges: [
    { from: { node: 'in', port: 'who' }, to: { node: 'hail', port: 'text' } },
    { from: { node: 'hail', port: 'loud' }, to: { node: 'out', port: 'greeting' } },
  ],
};

async function cli(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  return { code, stdout, stderr };
}

describe('child runs in the history, from a terminal', () => {
  it('are listed under their parent, found by search, and deleted with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steward-child-list-'));
    dirs.push(dir);
    const dataDir = join(dir, 'data');
    new WorkflowStore(dataDir).save(shout as Parameters<WorkflowStore['save']>[0]);
    const file = join(dir, 'greet.workflow.json');
    writeFileSync(file, JSON.stringify(greet));
    const ran = await cli(['run', file, '--input', 'who=Ada', '--data-dir', dataDir]);
    expect(ran.code, ran.stderr).toBe(0);

    const journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
    const rows = journal.runsPage({ limit: 10 }).runs.map((r) => r.run);
    journal.close();
    const parent = rows.find((r) => r.workflow_id === 'greet');
    const child = rows.find((r) => r.workflow_id === 'shout');
    if (!parent || !child) throw new Error(`the runs were not recorded: ${rows.map((r) => r.run_id).join(', ')}`);
    // The rows know each other: the child names its parent and the node; the parent lists the child.
    expect(child.parent).toEqual({ run_id: parent.run_id, invocation_id: 'hail', workflow_id: 'greet' });
    expect(parent.children).toEqual([child.run_id]);
    expect(child.run_id).toBe(`${parent.run_id}:hail`);

    const short = parent.run_id.slice(0, 8);
    const listed = await cli(['runs', 'list', '--data-dir', dataDir]);
    const lines = listed.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith(`${short}  `));
    expect(lines[at]).toMatch(/ {2}Greet · .* · 1 child run$/);
    expect(lines[at + 1]).toMatch(new RegExp(`^ {2}↳ ${short}…:hail {2}\\S.* {2}Shout · `));

    // Search finds the child by its own words; it says whose part it is when its parent is not listed with it.
    const found = await cli(['runs', 'search', 'Shout', '--data-dir', dataDir]);
    expect(found.stdout).toContain(`part of run ${short} (node hail)`);
    // The parent's id start names the parent (its children share it), as before there were children.
    const shown = await cli(['runs', 'show', short, '--data-dir', dataDir]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`run ${parent.run_id}\n`);

    const deleted = await cli(['runs', 'delete', parent.run_id, '--data-dir', dataDir]);
    expect(deleted.stdout).toBe('deleted 1 run and 1 child run of it\n');
    expect((await cli(['runs', 'list', '--data-dir', dataDir])).stdout).toBe("no runs in this data folder's history\n");
  });
});
