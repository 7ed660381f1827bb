import { describe, expect, it } from 'vitest';
import type { NodeOf } from '@shared/workflow/document';
import { portsOf } from '@shared/workflow/ports';
import { addNode, connect, replaceNode } from './graph-edit';
import { newWorkflowDraft } from './workflow-file';
import { routesProblem } from './RouteListEditor';

// Issue 29: an agent's routes are output ports in the editor; renaming keeps edges, a duplicate typed on the way never steals one.

function withRoutedAgent() {
  let draft = addNode(newWorkflowDraft([]), 'agent', { x: 0, y: 0 }).draft;
  const agent = draft.nodes.find((n) => n.kind === 'agent') as NodeOf<'agent'>;
  draft = replaceNode(draft, agent.id, { ...agent, routes: [{ name: 'billing' }, { name: 'support' }] });
  draft = connect(draft, { from: { node: agent.id, port: 'billing' }, to: { node: 'output', port: 'result' } });
  return { draft, id: agent.id };
}
const agentOf = (draft: ReturnType<typeof withRoutedAgent>['draft'], id: string) => draft.nodes.find((n) => n.id === id) as NodeOf<'agent'>;

describe('route ports in the editor', () => {
  it('each route is an output port after `output`, marked as a route', () => {
    const { draft, id } = withRoutedAgent();
    expect(portsOf(agentOf(draft, id)).outputs).toEqual([
      { name: 'output', type: 'text' },
      { name: 'billing', type: 'text', route: true },
      { name: 'support', type: 'text', route: true },
    ]);
  });

  it('renaming a route keeps its edge', () => {
    const { draft, id } = withRoutedAgent();
    const next = replaceNode(draft, id, { ...agentOf(draft, id), routes: [{ name: 'invoices' }, { name: 'support' }] });
    expect(next.edges).toEqual([{ from: { node: id, port: 'invoices' }, to: { node: 'output', port: 'result' } }]);
  });

  it('typing another route\'s name and back never moves that route\'s edge', () => {
    const { draft, id } = withRoutedAgent();
    const dup = replaceNode(draft, id, { ...agentOf(draft, id), routes: [{ name: 'billing' }, { name: 'billing' }] });
    expect(routesProblem(agentOf(dup, id).routes ?? [])).toBe('route 2: duplicate route billing');
    const back = replaceNode(dup, id, { ...agentOf(dup, id), routes: [{ name: 'billing' }, { name: 'support' }] });
    expect(back.edges).toEqual([{ from: { node: id, port: 'billing' }, to: { node: 'output', port: 'result' } }]);
  });
});
