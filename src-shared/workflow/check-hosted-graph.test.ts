import { describe, expect, it } from 'vitest';
import type { RegisteredServer, Workspace } from '../contracts/host-registry';
import { checkHostedGraph } from './check-hosted-graph';
import { HostedWorkflowGraph, type HostedWorkflowGraphInput } from './hosted-graph';
import { edge, input, output } from './testing/graphs';
import type { WorkflowNodeInput } from './document';

const fs: RegisteredServer = { id: 'filesystem', label: 'Filesystem', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], env: {}, source: 'shipped' };
const notes: Workspace = { id: 'notes', label: 'Notes', path: '/data/workspaces/notes', in_data_folder: true };
const registry = { servers: [fs], workspaces: [notes] };

const agent = (id: string, extra: Record<string, unknown> = {}): WorkflowNodeInput => ({ id, kind: 'agent', instructions: 'Help.', task: 'Do it.', ...extra }) as WorkflowNodeInput;
const tool = (id: string, server: string, name: string): WorkflowNodeInput => ({ id, kind: 'tool', server, tool: name });

function hosted(nodes: WorkflowNodeInput[], edges: string[], extra: Partial<HostedWorkflowGraphInput> = {}): HostedWorkflowGraph {
  return HostedWorkflowGraph.parse({ format: 'steward/v1', kind: 'workflow', id: 'w', name: 'W', nodes, edges: edges.map(edge), ...extra });
}

describe('checkHostedGraph', () => {
  it('a workflow whose servers and workspace are registered and whose graph is whole has no problems', () => {
    const doc = hosted([tool('read', 'fs', 'read_text_file'), output('out', 'text')], ['read.text->out.text'], { servers: [{ id: 'fs', server: 'filesystem' }], workspace: 'notes' });
    expect(checkHostedGraph(doc, registry)).toEqual([]);
  });

  it('an unregistered server is shown on every node that uses it, and on no other', () => {
    const doc = hosted(
      [tool('read', 'mail', 'inbox'), agent('all'), agent('named', { servers: ['mail'] }), agent('other', { servers: ['fs'] }), output('out', 'a', 'b', 'c', 'd')],
      ['read.text->out.a', 'all.output->out.b', 'named.output->out.c', 'other.output->out.d'],
      { servers: [{ id: 'fs', server: 'filesystem' }, { id: 'mail', server: 'imap' }] },
    );
    const problems = checkHostedGraph(doc, registry).filter((p) => p.code === 'unregistered_server');
    expect(problems.map((p) => p.node).sort()).toEqual(['all', 'named', 'read']);
    expect(problems[0]!.message).toContain('"imap"');
  });

  it('an unregistered server no node uses is a problem of the whole workflow', () => {
    const doc = hosted([input('in', 'q'), output('out', 'q')], ['in.q->out.q'], { servers: [{ id: 'mail', server: 'imap' }] });
    const problems = checkHostedGraph(doc, registry);
    expect(problems.map((p) => [p.code, p.node])).toEqual([['unregistered_server', undefined]]);
  });

  it('an unregistered workspace is named', () => {
    const doc = hosted([input('in', 'q'), output('out', 'q')], ['in.q->out.q'], { workspace: 'gone' });
    expect(checkHostedGraph(doc, registry)).toEqual([expect.objectContaining({ code: 'unregistered_workspace', message: expect.stringContaining('"gone"') })]);
  });

  it("a server that works in the workflow's workspace (${workspace} in its args) is named on its nodes when the workflow has none", () => {
    const doc = hosted([tool('read', 'fs', 'read_text_file'), output('out', 'text')], ['read.text->out.text'], { servers: [{ id: 'fs', server: 'filesystem' }] });
    expect(checkHostedGraph(doc, registry)).toEqual([{ node: 'read', code: 'workspace_required', message: expect.stringContaining('choose a workspace') }]);
    expect(checkHostedGraph({ ...doc, workspace: 'notes' }, registry)).toEqual([]);
  });

  it("the graph's own problems come with the registry's, named by node and port", () => {
    const doc = hosted([input('in', 'q'), { id: 'say', kind: 'template', template: '{{q}}', inputs: [{ name: 'q' }] }, output('out', 'text')], ['say.output->out.text'], { servers: [{ id: 'mail', server: 'imap' }] });
    const codes = checkHostedGraph(doc, registry).map((p) => [p.code, p.node, p.port]);
    expect(codes).toContainEqual(['unregistered_server', undefined, undefined]);
    expect(codes).toContainEqual(['not_connected', 'say', 'q']);
  });

  it("a tool the inspected server does not offer, or that the workflow's reference leaves out, is named on its node", () => {
    const doc = hosted([tool('a', 'fs', 'rm_rf'), tool('b', 'limited', 'write_file'), output('out', 'a', 'b')], ['a.text->out.a', 'b.text->out.b'], {
      servers: [{ id: 'fs', server: 'filesystem' }, { id: 'limited', server: 'filesystem', tools: ['read_text_file'] }],
      workspace: 'notes',
    });
    const problems = checkHostedGraph(doc, registry, { filesystem: ['read_text_file', 'write_file'] });
    expect(problems.map((p) => [p.code, p.node])).toEqual([['unknown_tool', 'a'], ['unknown_tool', 'b']]);
  });

  it("a tool outside the reference's tools list is named even before the server was inspected", () => {
    const doc = hosted([tool('b', 'limited', 'write_file'), output('out', 'b')], ['b.text->out.b'], { servers: [{ id: 'limited', server: 'filesystem', tools: ['read_text_file'] }], workspace: 'notes' });
    expect(checkHostedGraph(doc, registry).map((p) => [p.code, p.node])).toEqual([['unknown_tool', 'b']]);
  });
});
