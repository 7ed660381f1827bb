import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { RegistryRow } from '../../db/db';
import { HostProvider } from '../../app/HostProvider';
import { StewardDb } from '../../db/db';
import { createHostClient } from '../../host/host-client';
import { FakeTransport } from '../../testing/fake-transport';
import { AgentSection } from './AgentSection';
import { addNode } from './graph-edit';
import { nodeServers, offeredTools } from './use-offered-tools';
import { newWorkflowDraft } from './workflow-file';

const workflow = { ...newWorkflowDraft([]), servers: [{ id: 'fs', server: 'filesystem' }] };

function agentHtml(models?: 'ollama'): string {
  const added = addNode(workflow, 'agent', { x: 0, y: 0 });
  const found = added.draft.nodes.find((n) => n.id === added.id);
  if (found?.kind !== 'agent') throw new Error('an agent was added');
  const ollama = { provider: 'ollama' as const, model: 'qwen3:4b', mode: 'structured' as const, timeout_ms: 120_000 };
  const node = models ? { ...found, models: { student: ollama, teacher: ollama } } : found;
  return renderToStaticMarkup(
    <HostProvider client={createHostClient(new FakeTransport())} db={new StewardDb(`starter-${models ?? 'script'}`)} tokenMissing={false}>
      <AgentSection node={node} serverIds={['fs']} workflow={workflow} tools={{ inspect: () => undefined }} onChange={() => undefined} />
    </HostProvider>,
  );
}

const row = (server: string, tool: string, readOnly?: boolean): RegistryRow => ({
  server,
  tool,
  updated_at: '',
  inspected: { name: tool, description: '', input_schema: { type: 'object' }, effect: { effect: 'unknown', requires_user_confirmation: false, idempotency_supported: false, sensitive_arguments: [] }, effect_source: 'missing', ...(readOnly !== undefined ? { hints: { readOnlyHint: readOnly } } : {}) },
});

describe('an agent on the replay models, in the inspector', () => {
  it('offers a starter replay script next to its script, and explains every decision type in place', () => {
    const html = agentHtml();
    expect(html).toMatch(/data-testid="replay-starter".*Starter replay script.*data-testid="decision-help".*tool_call.*ask_user.*present_result.*request_confirmation.*reroute.*complete.*data-testid="inspector-script"/s);
    expect(html).toContain('Calls one of the tools the node may use');
    // Nothing inspected yet: it says so and offers to look the node's server up.
    expect(html).toContain('no tool of this node is known yet');
    expect(html).toContain('data-testid="starter-inspect-fs"');
  });

  it('an agent on a model server shows no replay starter while that server is not known to be down', () => {
    expect(agentHtml('ollama')).not.toContain('data-testid="replay-starter"');
  });

  it("offers the tools of the node's own servers only, narrowed by a server's tool list, from what an inspection listed", () => {
    const rows = [row('filesystem', 'read_text_file', true), row('filesystem', 'write_file', false), row('memory', 'read_graph', true), { server: 'filesystem', tool: 'never_inspected', updated_at: '' }];
    const servers = [
      { id: 'fs', server: 'filesystem', tools: ['write_file', 'never_inspected'] },
      { id: 'mem', server: 'memory' },
    ];
    expect(offeredTools(nodeServers(servers, ['fs']), rows).map((t) => t.name)).toEqual(['write_file']);
    expect(offeredTools(nodeServers(servers, undefined), rows).map((t) => t.name)).toEqual(['write_file', 'read_graph']);
  });
});
