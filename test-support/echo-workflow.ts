import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';

/** A workflow of one required text input, said back through a template (no server, no model). */
export function hostedEcho(id = 'echo', extra: Record<string, unknown> = {}): HostedWorkflowGraph {
  return HostedWorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id,
    name: `Echo ${id}`,
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'name', type: 'text' }] },
      { id: 'say', kind: 'template', template: 'hello {{name}}', inputs: [{ name: 'name', type: 'text' }] },
      { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'name' }, to: { node: 'say', port: 'name' } },
      { from: { node: 'say', port: 'output' }, to: { node: 'out', port: 'said' } },
    ],
    ...extra,
  });
}
