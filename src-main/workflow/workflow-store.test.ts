import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostedWorkflowGraphInput } from '@shared/workflow/hosted-graph';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { WorkflowStore, WorkflowStoreError } from './workflow-store';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function store() {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-wf-store-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const logs: string[] = [];
  return { dataDir, logs, store: new WorkflowStore(dataDir, (line) => logs.push(line)) };
}

function graph(id: string, name: string, extra: Partial<HostedWorkflowGraphInput> = {}): HostedWorkflowGraph {
  return HostedWorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id,
    name,
    nodes: [
      { id: 'say', kind: 'template', template: 'hello' },
      { id: 'out', kind: 'output', fields: [{ name: 'text', type: 'text' }] },
    ],
    edges: [{ from: { node: 'say', port: 'output' }, to: { node: 'out', port: 'text' } }],
    servers: [{ id: 'fs', server: 'filesystem' }],
    ...extra,
  });
}

describe('WorkflowStore', () => {
  it('keeps each workflow as workflows/<id>.workflow.json holding the hosted graph itself, and gives it back whole', () => {
    const { dataDir, store: s } = store();
    const doc = graph('notes', 'Notes');
    const saved = s.save(doc);
    expect(saved.id).toBe('notes');
    const file = join(dataDir, 'workflows', 'notes.workflow.json');
    expect(HostedWorkflowGraph.parse(JSON.parse(readFileSync(file, 'utf8')))).toEqual(doc);
    expect(s.get('notes')).toEqual({ workflow: doc, updated_at: saved.updated_at });
    expect(s.get('other')).toBeUndefined();
  });

  it('lists summaries sorted by name, and sees a file another process wrote at once', () => {
    const { dataDir, store: s } = store();
    s.save(graph('b', 'Zebra triage'));
    s.save(graph('a', 'apple notes', { description: 'two nodes' }));
    // Another process (the CLI) writes through its own store: the first one reads the disk every time.
    new WorkflowStore(dataDir).save(graph('c', 'Mango'));
    const list = s.list();
    expect(list.map((w) => w.name)).toEqual(['apple notes', 'Mango', 'Zebra triage']);
    expect(list[0]).toMatchObject({ id: 'a', description: 'two nodes', node_count: 2 });
    expect(list[0]!.updated_at).toBe(s.get('a')!.updated_at);
  });

  it('a damaged file is left out of the list with a log line naming it, and get says which file to fix', () => {
    const { dataDir, logs, store: s } = store();
    s.save(graph('good', 'Good'));
    writeFileSync(join(dataDir, 'workflows', 'broken.workflow.json'), '{"format": "steward/v1", "kind": ');
    writeFileSync(join(dataDir, 'workflows', 'wrong.workflow.json'), JSON.stringify({ format: 'steward/v1', kind: 'workflow', id: 'wrong', name: 'W', nodes: [] }));
    expect(s.list().map((w) => w.id)).toEqual(['good']);
    expect(logs.some((l) => l.includes('broken.workflow.json'))).toBe(true);
    expect(logs.some((l) => l.includes('wrong.workflow.json'))).toBe(true);
    expect(() => s.get('broken')).toThrow(/broken\.workflow\.json is damaged/);
  });

  it('a file whose workflow id differs from its name is not listed under either id', () => {
    const { dataDir, logs, store: s } = store();
    mkdirSync(join(dataDir, 'workflows'));
    writeFileSync(join(dataDir, 'workflows', 'copy.workflow.json'), JSON.stringify(graph('orig', 'Orig')));
    expect(s.list()).toEqual([]);
    expect(logs.join('\n')).toMatch(/copy\.workflow\.json holds workflow "orig"/);
    expect(() => s.get('copy')).toThrow(WorkflowStoreError);
  });

  it('a save with the updated_at the editor loaded succeeds; one with a stale updated_at is a conflict and changes nothing', () => {
    const { store: s } = store();
    const first = s.save(graph('w', 'First'));
    const second = s.save(graph('w', 'Second'), { ifUpdatedAt: first.updated_at });
    expect(second.updated_at > first.updated_at).toBe(true);
    let error: unknown;
    try {
      s.save(graph('w', 'Third'), { ifUpdatedAt: first.updated_at });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(WorkflowStoreError);
    expect(error).toMatchObject({ code: 'conflict' });
    expect(s.get('w')!.workflow.name).toBe('Second');
  });

  it('updated_at changes on every save, even two in the same millisecond', () => {
    const { store: s } = store();
    const stamps = Array.from({ length: 5 }, (_, i) => s.save(graph('w', `N${i}`)).updated_at);
    expect(new Set(stamps).size).toBe(5);
    expect([...stamps].sort()).toEqual(stamps);
  });

  it('a save with ifUpdatedAt for a workflow deleted meanwhile is refused as not found', () => {
    const { store: s } = store();
    const first = s.save(graph('w', 'First'));
    expect(s.delete('w')).toBe(true);
    expect(() => s.save(graph('w', 'Again'), { ifUpdatedAt: first.updated_at })).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(s.get('w')).toBeUndefined();
  });

  it('a rename (replaces) stores the new id and removes the old file', () => {
    const { dataDir, store: s } = store();
    const first = s.save(graph('old', 'Old'));
    s.save(graph('new', 'New'), { replaces: 'old', ifUpdatedAt: first.updated_at });
    expect(s.get('old')).toBeUndefined();
    expect(s.get('new')!.workflow.name).toBe('New');
    expect(readdirSync(join(dataDir, 'workflows'))).toEqual(['new.workflow.json']);
  });

  it('a rename onto the id of another stored workflow is a conflict: neither is lost', () => {
    const { store: s } = store();
    s.save(graph('a', 'A'));
    s.save(graph('b', 'B'));
    expect(() => s.save(graph('b', 'A renamed'), { replaces: 'a' })).toThrow(expect.objectContaining({ code: 'conflict' }));
    expect(s.get('a')!.workflow.name).toBe('A');
    expect(s.get('b')!.workflow.name).toBe('B');
  });

  it('saving an id that exists without replaces replaces it', () => {
    const { store: s } = store();
    s.save(graph('a', 'A'));
    s.save(graph('a', 'A2'));
    expect(s.list().map((w) => w.name)).toEqual(['A2']);
  });

  it('delete removes the file and says whether there was one; no temporary files are left behind', () => {
    const { dataDir, store: s } = store();
    s.save(graph('a', 'A'));
    expect(s.delete('a')).toBe(true);
    expect(s.delete('a')).toBe(false);
    expect(existsSync(join(dataDir, 'workflows', 'a.workflow.json'))).toBe(false);
    expect(readdirSync(join(dataDir, 'workflows'))).toEqual([]);
  });

  it('an id that is not a registry id never reaches the file system', () => {
    const { store: s } = store();
    expect(() => s.get('../servers')).toThrow(WorkflowStoreError);
    expect(() => s.delete('../../x')).toThrow(WorkflowStoreError);
  });
});
