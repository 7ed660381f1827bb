import { describe, expect, it } from 'vitest';
import { FILESYSTEM_PACKAGE } from '../policy/shipped-effects';
import { WorkflowGraph, type WorkflowGraphInput } from './document';
import { workflowEffect } from './workflow-effect';

/** A stored workflow as a tool takes its most protected node's effect class (issue 29). */
const graph = (id: string, nodes: WorkflowGraphInput['nodes'], extra: Partial<WorkflowGraphInput> = {}): WorkflowGraph =>
  WorkflowGraph.parse({ format: 'steward/v1', kind: 'workflow', id, name: id, nodes, ...extra });

const fs = { servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }] };
type NodeInput = WorkflowGraphInput['nodes'][number];
const out: NodeInput = { id: 'out', kind: 'output', fields: [{ name: 'x' }] };

describe('a workflow’s effect class as a tool', () => {
  it('is read when no node writes or sends anything', () => {
    const effect = workflowEffect(graph('tidy', [{ id: 't', kind: 'template', template: 'hi' }, out]), () => undefined);
    expect(effect).toEqual({ effect: { effect: 'read', requires_user_confirmation: false, idempotency_supported: false, sensitive_arguments: [] }, because: 'no node writes or sends anything' });
  });

  it('is its most protected node’s: a filesystem write beats a read', () => {
    const nodes: NodeInput[] = [
      { id: 'look', kind: 'tool', server: 'fs', tool: 'read_text_file', arguments: { path: 'a' } },
      { id: 'save', kind: 'tool', server: 'fs', tool: 'write_file', arguments: { path: 'a', content: 'b' } },
      out,
    ];
    expect(workflowEffect(graph('w', [...nodes], fs), () => undefined)).toMatchObject({ effect: { effect: 'irreversible_write' }, because: 'node save (tool fs/write_file): Irreversible write' });
    // The user's own setting for a tool counts, as it does for the tool itself.
    const mild = graph('w', [...nodes], { ...fs, tool_effects: { 'fs/write_file': { effect: 'reversible_write' } } });
    expect(workflowEffect(mild, () => undefined).effect.effect).toBe('reversible_write');
  });

  it('an agent counts with every tool its servers may offer; a server nobody described is unknown, so protected', () => {
    const agent: NodeInput = { id: 'a', kind: 'agent', instructions: 'i', task: 't' };
    expect(workflowEffect(graph('w', [agent, out], { servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, tools: ['read_text_file'] }] }), () => undefined).effect.effect).toBe('read');
    expect(workflowEffect(graph('w', [agent, out], fs), () => undefined).effect.effect).toBe('irreversible_write');
    expect(workflowEffect(graph('w', [agent, out], { servers: [{ id: 'mine', command: 'my-server' }] }), () => undefined)).toMatchObject({ effect: { effect: 'unknown' }, because: 'node a may call any tool of server mine, whose tools nobody described: unknown, so protected' });
  });

  it('a workflow it runs counts as its own nodes do; one that cannot be read, or loops, is unknown', () => {
    const writer = graph('writer', [{ id: 'save', kind: 'tool', server: 'fs', tool: 'write_file', arguments: { path: 'a', content: 'b' } }, out], fs);
    const outer = graph('outer', [{ id: 'inner', kind: 'workflow', workflow: 'writer' }, out]);
    expect(workflowEffect(outer, (id) => (id === 'writer' ? writer : undefined))).toMatchObject({ effect: { effect: 'irreversible_write' }, because: 'node inner runs the workflow "writer": node save (tool fs/write_file): Irreversible write' });
    expect(workflowEffect(outer, () => undefined).effect.effect).toBe('unknown');
    const loop = graph('loop', [{ id: 'again', kind: 'workflow', workflow: 'loop' }, out]);
    expect(workflowEffect(loop, () => loop).effect.effect).toBe('unknown');
  });
});
