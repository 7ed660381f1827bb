import { WorkflowGraph, type WorkflowGraphInput, type WorkflowNodeInput } from '../document';

/** Test graphs: a node list and `a.port->b.port` edges, parsed through the real schema. */
export function graphOf(nodes: WorkflowNodeInput[], edges: string[] = [], extra: Partial<WorkflowGraphInput> = {}): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'test',
    name: 'Test',
    nodes,
    edges: edges.map(edge),
    ...extra,
  });
}

export function edge(text: string): { from: { node: string; port: string }; to: { node: string; port: string } } {
  const [from, to] = text.split('->');
  const [fn, fp] = (from ?? '').split('.');
  const [tn, tp] = (to ?? '').split('.');
  return { from: { node: fn ?? '', port: fp ?? '' }, to: { node: tn ?? '', port: tp ?? '' } };
}

export const input = (id: string, ...fields: string[]): WorkflowNodeInput => ({ id, kind: 'input', fields: fields.map((name) => ({ name })) });
export const output = (id: string, ...fields: string[]): WorkflowNodeInput => ({ id, kind: 'output', fields: fields.map((name) => ({ name })) });
export const template = (id: string, text: string, ...inputs: string[]): WorkflowNodeInput => ({
  id,
  kind: 'template',
  template: text,
  inputs: inputs.map((name) => ({ name })),
});
export const iterate = (id: string): WorkflowNodeInput => ({ id, kind: 'iterate' });
export const collect = (id: string): WorkflowNodeInput => ({ id, kind: 'collect' });
