import { describe, expect, it } from 'vitest';
import type { EffectOverride, RegisteredServer, Workspace } from '../contracts/host-registry';
import type { ToolEffect } from '../contracts/tool-effect';
import { HostedWorkflowGraph, type HostedWorkflowGraphInput } from '../workflow/hosted-graph';
import { edge, output } from '../workflow/testing/graphs';
import { expandHostedGraph, serverTransport, type RegistryView } from './expand-workflow';

const servers: RegisteredServer[] = [
  { id: 'filesystem', label: 'Filesystem', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], env: {}, source: 'shipped' },
  { id: 'mail', label: 'Mail', command: '/usr/local/bin/mail-mcp', args: ['--stdio'], env: { TOKEN: 'keychain:mail-token' }, source: 'user' },
];
const workspaces: Workspace[] = [{ id: 'notes', label: 'Notes', path: '/data/workspaces/notes', in_data_folder: true }];
const external: ToolEffect = { effect: 'external_communication', requires_user_confirmation: true, idempotency_supported: false, sensitive_arguments: [] };
const overrides: EffectOverride[] = [{ server: 'mail', tool: 'send', effect: external }];
const registry: RegistryView = { servers, workspaces, overrides };

function hosted(extra: Partial<HostedWorkflowGraphInput> = {}): HostedWorkflowGraph {
  return HostedWorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'w',
    name: 'W',
    nodes: [{ id: 'send', kind: 'tool', server: 'post', tool: 'send' }, output('out', 'text')],
    edges: [edge('send.text->out.text')],
    servers: [{ id: 'post', server: 'mail', tools: ['send'] }, { id: 'files', server: 'filesystem' }],
    workspace: 'notes',
    ...extra,
  });
}

describe('expandHostedGraph', () => {
  it("each server reference becomes the registered launch under the workflow's own name; the workspace's folder comes beside the graph", () => {
    const result = expandHostedGraph(hosted(), registry);
    if (!result.ok) throw new Error(result.message);
    expect(result.graph.servers).toEqual([
      { id: 'post', command: '/usr/local/bin/mail-mcp', args: ['--stdio'], env: { TOKEN: 'keychain:mail-token' }, tools: ['send'] },
      { id: 'files', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'] },
    ]);
    expect(result.workspace).toBe('/data/workspaces/notes');
    expect(result.graph.workspace).toBeUndefined();
    expect(result.graph.nodes.map((n) => n.id)).toEqual(['send', 'out']);
  });

  it("the user's effect overrides for a registered server apply under every name the workflow gives it", () => {
    const result = expandHostedGraph(hosted({ servers: [{ id: 'post', server: 'mail' }, { id: 'again', server: 'mail' }] }), registry);
    if (!result.ok) throw new Error(result.message);
    expect(result.graph.tool_effects).toEqual({ 'post/send': external, 'again/send': external });
  });

  it('an unregistered server or workspace is refused by name, never launched', () => {
    expect(expandHostedGraph(hosted({ servers: [{ id: 'post', server: 'gone' }] }), registry)).toEqual({ ok: false, kind: 'unregistered', message: expect.stringContaining('"gone"') });
    expect(expandHostedGraph(hosted({ workspace: 'elsewhere' }), registry)).toEqual({ ok: false, kind: 'unregistered', message: expect.stringContaining('"elsewhere"') });
  });

  it('a workflow without a workspace expands without one', () => {
    const result = expandHostedGraph(hosted({ workspace: undefined }), registry);
    expect(result).toMatchObject({ ok: true });
    expect(result.ok && 'workspace' in result).toBe(false);
  });

  it("a remote server's headers and sign-in client registered beforehand reach the run's entry; a stdio server's never carry them", () => {
    const oauth = { client_id: 'steward-desktop', client_secret: 'keychain:idp-secret' };
    expect(serverTransport({ url: 'https://mcp.example.com/mcp', headers: { 'X-Team': 'keychain:team' }, oauth })).toEqual({ url: 'https://mcp.example.com/mcp', headers: { 'X-Team': 'keychain:team' }, oauth });
    expect(serverTransport({ url: 'https://mcp.example.com/mcp', headers: {} })).toEqual({ url: 'https://mcp.example.com/mcp' });
    expect(serverTransport({ command: 'node', oauth })).toEqual({ command: 'node' });
  });
});
