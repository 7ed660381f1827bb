import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { NODE_KINDS, type WorkflowNode } from '@shared/workflow/document';
import { HostProvider } from '../../app/HostProvider';
import { StewardDb } from '../../db/db';
import { createHostClient } from '../../host/host-client';
import { FakeTransport } from '../../testing/fake-transport';
import { addNode } from './graph-edit';
import { Inspector } from './Inspector';
import { newWorkflowDraft } from './workflow-file';

const tools = { byServer: { filesystem: ['read_text_file', 'write_file'] }, inspect: () => undefined };

function inspect(kind: (typeof NODE_KINDS)[number], change: (node: WorkflowNode) => WorkflowNode = (n) => n): string {
  const added = addNode({ ...newWorkflowDraft([]), servers: [{ id: 'fs', server: 'filesystem' }] }, kind, { x: 0, y: 0 });
  const found = added.draft.nodes.find((n) => n.id === added.id);
  if (!found) throw new Error('the node was added');
  const node = change(found);
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

  it('a tool node with a list input offers to stream over it, and says what {{item}} is once it streams', () => {
    const withList = (n: WorkflowNode): WorkflowNode => (n.kind === 'tool' ? { ...n, inputs: [{ name: 'files', type: 'list', required: true }, { name: 'note', type: 'text', required: true }] } : n);
    const html = inspect('tool', withList);
    expect(html).toMatch(/data-testid="inspector-tool-stream".*No: one call.*One call per element of files/s);
    expect(html).not.toContain('One call per element of note');
    const streaming = inspect('tool', (n) => {
      const listed = withList(n);
      return listed.kind === 'tool' ? { ...listed, stream: { over: 'files' } } : listed;
    });
    expect(streaming).toContain('{{item}} in the arguments is the element');
  });

  it('an agent node has an Output schema field (null: any text)', () => {
    expect(inspect('agent')).toMatch(/Output schema.*data-testid="inspector-output-schema"/s);
  });
});
