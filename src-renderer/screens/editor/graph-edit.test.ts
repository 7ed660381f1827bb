import { describe, expect, it } from 'vitest';
import { NODE_KINDS, WorkflowNode } from '@shared/workflow/document';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { addNode, connect, moveNodes, removeElements, replaceNode, uniqueId } from './graph-edit';
import { newWorkflowDraft } from './workflow-file';

const base = () => newWorkflowDraft([]);
/** The new workflow's input and output nodes, typed. */
function ends() {
  const [input, output] = base().nodes;
  if (input?.kind !== 'input' || output?.kind !== 'output') throw new Error('a new workflow starts with an input and an output');
  return { input, output, field: input.fields[0] ?? { name: 'text', type: 'text' as const, required: true } };
}

describe('editor graph edits', () => {
  it('every node kind the palette adds is one the schema accepts; a tool node only waits for its tool name, a workflow node for its workflow', () => {
    let draft = { ...base(), servers: [{ id: 'fs', server: 'filesystem' }] };
    for (const kind of NODE_KINDS) draft = addNode(draft, kind, { x: 1, y: 2 }).draft;
    for (const node of draft.nodes) {
      const parsed = WorkflowNode.safeParse(node);
      expect(parsed.success ? [] : parsed.error.issues.map((i) => i.path.join('.')), node.kind).toEqual(node.kind === 'tool' ? ['tool'] : node.kind === 'workflow' ? ['workflow'] : []);
    }
    expect(draft.nodes.find((n) => n.kind === 'tool')).toMatchObject({ server: 'fs' });
    expect(HostedWorkflowGraph.safeParse(base()).success).toBe(true);
  });

  it('a node added twice gets a fresh id each time', () => {
    const one = addNode(base(), 'agent', { x: 0, y: 0 });
    const two = addNode(one.draft, 'agent', { x: 0, y: 0 });
    expect([one.id, two.id]).toEqual(['agent', 'agent-2']);
    expect(uniqueId('input', ['input', 'input-2'])).toBe('input-3');
  });

  it('a new edge into an input that is already connected replaces the old edge (a port takes one edge)', () => {
    let draft = addNode(base(), 'input', { x: 0, y: 0 }).draft; // input-2, field text
    draft = connect(draft, { from: { node: 'input-2', port: 'text' }, to: { node: 'output', port: 'result' } });
    expect(draft.edges).toEqual([{ from: { node: 'input-2', port: 'text' }, to: { node: 'output', port: 'result' } }]);
    expect(connect(draft, { from: { node: 'input-2', port: 'text' }, to: { node: 'output', port: 'result' } })).toBe(draft);
  });

  it('removing a node removes every edge that touches it; removing an edge keeps the nodes', () => {
    expect(removeElements(base(), ['input'], []).edges).toEqual([]);
    const cut = removeElements(base(), [], [0]);
    expect(cut.edges).toEqual([]);
    expect(cut.nodes).toHaveLength(2);
  });

  it('renaming a node or one of its ports keeps its edges', () => {
    const { input, field } = ends();
    const renamed = replaceNode(base(), 'input', { ...input, id: 'question', fields: [{ ...field, name: 'query' }] });
    expect(renamed.edges).toEqual([{ from: { node: 'question', port: 'query' }, to: { node: 'output', port: 'result' } }]);
  });

  it('adding a port does not rename the edges of the others', () => {
    const draft = base();
    const { output } = ends();
    const next = replaceNode(draft, 'output', { ...output, fields: [{ name: 'summary', type: 'text', required: true }, ...output.fields] });
    expect(next.edges).toEqual(draft.edges);
  });

  it('moved nodes keep whole-pixel positions', () => {
    expect(moveNodes(base(), { input: { x: 10.4, y: 20.6 } }).nodes[0]?.position).toEqual({ x: 10, y: 21 });
  });
});
