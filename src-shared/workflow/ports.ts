import type { NodeKind, PortDecl, PortType, WorkflowNode } from './document';

/** An output port: what a node produces. `scope: 'item'` = once per element of an iterate. */
export interface OutputPort {
  name: string;
  type: PortType;
  scope?: 'item';
  /** One of an agent's declared routes (sends only when a reroute takes it). */
  route?: true;
}

export interface NodePorts {
  inputs: PortDecl[];
  outputs: OutputPort[];
}

const req = (name: string, type: PortType): PortDecl => ({ name, type, required: true });

/** A node's ports follow from its kind and config: a document cannot invent one. */
export function portsOf(node: WorkflowNode): NodePorts {
  switch (node.kind) {
    case 'input':
      return { inputs: [], outputs: node.fields.map((f) => ({ name: f.name, type: f.type })) };
    case 'agent':
      // Each declared route is an output port too: the taken one carries the agent's reason.
      return { inputs: node.inputs, outputs: [{ name: 'output', type: 'text' }, ...(node.routes ?? []).map((r) => ({ name: r.name, type: 'text' as const, route: true as const }))] };
    case 'pattern':
      return { inputs: node.inputs, outputs: [{ name: 'output', type: 'text' }, { name: 'approved', type: 'boolean' }, { name: 'iterations', type: 'number' }] };
    case 'tool':
      // A stream's `result` is the list of its results (an iterate takes them one by one as they come).
      return { inputs: node.inputs, outputs: [{ name: 'result', type: node.stream ? 'list' : 'any' }, { name: 'text', type: 'text' }] };
    case 'template':
      return { inputs: node.inputs, outputs: [{ name: 'output', type: node.format === 'json' ? 'any' : 'text' }] };
    case 'assert':
      return { inputs: [req('value', 'any')], outputs: [{ name: 'value', type: 'any' }] };
    case 'iterate':
      return { inputs: [req('list', 'list')], outputs: [{ name: 'item', type: 'any', scope: 'item' }] };
    case 'collect':
      return { inputs: [req('item', 'any')], outputs: [{ name: 'list', type: 'list' }] };
    case 'workflow':
      // The stored workflow's run inputs and outputs, as picked (validation checks them against it).
      return { inputs: node.inputs, outputs: node.outputs.map((p) => ({ name: p.name, type: p.type })) };
    case 'output':
      return { inputs: node.fields, outputs: [] };
  }
}

/** Whether a value of type `from` may flow into a port of type `to`. */
export function typesConnect(from: PortType, to: PortType): boolean {
  return from === to || from === 'any' || to === 'any' || (to === 'text' && (from === 'number' || from === 'boolean'));
}

/** Labels for the editor's palette and messages. */
export const NODE_KIND_LABELS = {
  input: 'Input',
  agent: 'Agent',
  pattern: 'Pattern',
  tool: 'MCP tool',
  template: 'Template',
  assert: 'Assert',
  iterate: 'Iterate',
  collect: 'Collect',
  workflow: 'Run a workflow',
  output: 'Output',
} satisfies Record<NodeKind, string>;
