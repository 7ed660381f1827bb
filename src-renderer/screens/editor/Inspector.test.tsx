import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { NODE_KINDS } from '@shared/workflow/document';
import { HostProvider } from '../../app/HostProvider';
import { StewardDb } from '../../db/db';
import { createHostClient } from '../../host/host-client';
import { FakeTransport } from '../../testing/fake-transport';
import { addNode } from './graph-edit';
import { Inspector } from './Inspector';
import { newWorkflowDraft } from './workflow-file';

const tools = { byServer: { filesystem: ['read_text_file', 'write_file'] }, inspect: () => undefined };

function inspect(kind: (typeof NODE_KINDS)[number]): string {
  const added = addNode({ ...newWorkflowDraft([]), servers: [{ id: 'fs', server: 'filesystem' }] }, kind, { x: 0, y: 0 });
  const node = added.draft.nodes.find((n) => n.id === added.id);
  if (!node) throw new Error('the node was added');
  return renderToStaticMarkup(
    <HostProvider client={createHostClient(new FakeTransport())} db={new StewardDb(`inspector-${kind}`)} tokenMissing={false}>
      <Inspector node={node} draft={added.draft} tools={tools} problems={['a problem of this node']} onChange={() => undefined} onRemove={() => undefined} />
    </HostProvider>,
  );
}

describe('the node inspector', () => {
  it('opens for every node kind with its id, label and the node problems', () => {
    for (const kind of NODE_KINDS) {
      const html = inspect(kind);
      expect(html, kind).toContain('data-testid="inspector-id"');
      expect(html, kind).toContain('a problem of this node');
    }
  });

  it("an agent's Supervision & Learning comes after its Settings and before its Input Args, then task and instructions", () => {
    const html = inspect('agent');
    const order = ['inspector-agent-name', 'inspector-supervision', 'model-select-student', 'model-select-teacher', 'inspector-phase', 'inspector-max-rounds', 'inspector-inputs', 'inspector-task', 'inspector-instructions'].map((id) => html.indexOf(`data-testid="${id}"`));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(html.indexOf('Settings')).toBeLessThan(html.indexOf('Supervision &amp; Learning'));
  });

  it('a pattern node is configured like any node: type with its preset, members, iterations, exhaustion, then the judgment and its callers', () => {
    const html = inspect('pattern');
    const order = ['inspector-pattern-type', 'inspector-pattern-max-iterations', 'inspector-pattern-exhaustion', 'inspector-task', 'inspector-pattern-members', 'inspector-judgment-placement', 'inspector-judgment-mode', 'inspector-judgment-trigger', 'inspector-judgment-callers', 'inspector-judgment-must-cite', 'inspector-judge-model'].map((id) => html.indexOf(`data-testid="${id}"`));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it("a tool node offers the inspected tools of its workflow server's registered server", () => {
    const html = inspect('tool');
    expect(html).toMatch(/data-testid="inspector-tool-select".*read_text_file.*write_file/s);
  });
});
