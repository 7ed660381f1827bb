import { describe, expect, it } from 'vitest';
import type { RegisteredServer } from '@shared/contracts/host-registry';
import { addNode } from './graph-edit';
import { draftProblems, indexProblems, portKey } from './problems';
import { newWorkflowDraft } from './workflow-file';

const none = { servers: [] as RegisteredServer[], workspaces: [] };

describe('editor problems', () => {
  it('a new workflow has no problem and can be saved', () => {
    expect(draftProblems(newWorkflowDraft([]), none, {})).toEqual({ problems: [], valid: true });
  });

  it('a bad port name is shown on its node and port, and the draft cannot be saved', () => {
    const draft = newWorkflowDraft([]);
    const bad = { ...draft, nodes: draft.nodes.map((n) => (n.kind === 'input' ? { ...n, fields: [{ name: 'Bad Name', type: 'text' as const, required: true }] } : n)) };
    const { problems, valid } = draftProblems(bad, none, {});
    expect(valid).toBe(false);
    expect(problems[0]).toMatchObject({ node: 'input', port: 'Bad Name', code: 'schema' });
    expect(problems[0]?.message).toMatch(/^`name` in the first field: use lowercase/);
  });

  it('an unconnected required input is shown next to its port; a server the host does not have on the nodes using it', () => {
    let draft = { ...newWorkflowDraft([]), servers: [{ id: 'fs', server: 'gone' }] };
    draft = addNode(draft, 'iterate', { x: 0, y: 0 }).draft;
    draft = addNode(draft, 'agent', { x: 0, y: 0 }).draft;
    const index = indexProblems(draftProblems(draft, none, {}).problems);
    expect(index.port.get(portKey('iterate', 'list'))?.[0]).toMatch(/required input "list" is not connected/);
    expect(index.node.get('agent')?.[0]).toMatch(/not registered on this host/);
  });

  it('an edge problem is shown on the edge', () => {
    const draft = newWorkflowDraft([]);
    const typed = { ...draft, nodes: draft.nodes.map((n) => (n.kind === 'output' ? { ...n, fields: [{ name: 'result', type: 'list' as const, required: true }] } : n)) };
    const index = indexProblems(draftProblems(typed, none, {}).problems);
    expect(index.edge.get(0)?.[0]).toMatch(/text value .* cannot flow into this list input/);
  });
});
