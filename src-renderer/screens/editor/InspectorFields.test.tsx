import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { WorkflowNode } from '@shared/workflow/document';
import { HostProvider } from '../../app/HostProvider';
import { StewardDb } from '../../db/db';
import { createHostClient } from '../../host/host-client';
import { FakeTransport } from '../../testing/fake-transport';
import { Inspector } from './Inspector';
import { WorkflowPanel } from './WorkflowPanel';
import { newWorkflowDraft } from './workflow-file';

const tools = { byServer: {}, inspect: () => undefined };

function page(children: React.ReactNode, name: string): string {
  return renderToStaticMarkup(
    <HostProvider client={createHostClient(new FakeTransport())} db={new StewardDb(`inspector-fields-${name}`)} tokenMissing={false}>
      {children}
    </HostProvider>,
  );
}

describe('the inspector says what is wrong with a field, beside it, in words', () => {
  it('an empty node id: "Id is required", the field marked invalid and described by it', () => {
    const draft = newWorkflowDraft([]);
    const node: WorkflowNode = { id: '', kind: 'collect' };
    const html = page(<Inspector node={node} draft={{ ...draft, nodes: [...draft.nodes, node] }} tools={tools} problems={[]} onChange={() => undefined} onRemove={() => undefined} />, 'empty-id');
    const input = /<input id="([^"]+)"[^>]*data-testid="inspector-id"[^>]*>/.exec(html);
    expect(input?.[0]).toContain('aria-invalid="true"');
    expect(input?.[0]).toContain(`aria-describedby="${input?.[1]}-issue"`);
    expect(html).toContain(`id="${input?.[1]}-issue">Id is required</p>`);
    expect(html).toContain('Id is required');
    expect(html).not.toMatch(/Too small|Invalid string|expected string/);
  });

  it('an id another node has is named as such', () => {
    const draft = newWorkflowDraft([]);
    const node: WorkflowNode = { id: 'input', kind: 'collect' };
    const html = page(<Inspector node={node} draft={{ ...draft, nodes: [...draft.nodes, node] }} tools={tools} problems={[]} onChange={() => undefined} onRemove={() => undefined} />, 'taken-id');
    expect(html).toContain('Another node already has the Id “input”');
  });

  it('a workflow without a name: "Name is required"; an id with a space says which characters it may use', () => {
    const draft = { ...newWorkflowDraft([]), name: '', id: 'my workflow' };
    const html = page(<WorkflowPanel draft={draft} servers={[]} workspaces={[]} problems={[]} onChange={() => undefined} />, 'workflow');
    expect(html).toContain('Name is required');
    expect(html).toContain('Id may use letters, digits, - and _ (no spaces)');
  });

  it('a valid node shows no field error', () => {
    const draft = newWorkflowDraft([]);
    const node = draft.nodes[0];
    if (!node) throw new Error('a node');
    const html = page(<Inspector node={node} draft={draft} tools={tools} problems={[]} onChange={() => undefined} onRemove={() => undefined} />, 'valid');
    expect(html).not.toContain('aria-invalid');
    expect(html).not.toContain('form-row__issue');
  });
});
