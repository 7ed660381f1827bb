import { AgentNode, type Edge, type NodeKind, type WorkflowNode } from '@shared/workflow/document';
import type { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { presetPatternNode } from '@shared/workflow/pattern-preset-node';
import { portsOf } from '@shared/workflow/ports';

/**
 * The editor's document edits, pure: each takes the draft and returns the next one (the undo
 * history keeps both). A draft may be invalid while it is edited — the schema and graph checks
 * show what is wrong on the nodes — so these never throw on a half-made node.
 */
export type Draft = HostedWorkflowGraph;
export type XY = { x: number; y: number };

/** `base`, else `base-2`, `base-3`… : the first not in `taken`. */
export function uniqueId(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** A new node of this kind, with what its schema requires filled in so it is usable at once. */
export function newNode(kind: NodeKind, id: string, position: XY, draft: Draft): WorkflowNode {
  const base = { id, position };
  switch (kind) {
    case 'input':
      return { ...base, kind, fields: [{ name: 'text', type: 'text', required: true }] };
    case 'agent':
      return AgentNode.parse({ ...base, kind, instructions: 'You are a careful assistant. Finish with complete and your answer as its output.', task: 'Say what this agent should do. Add input args and use them here by name in double braces.' });
    case 'pattern':
      return { ...presetPatternNode(id, 'PIPELINE'), position };
    case 'tool':
      // Left empty on purpose when the workflow has no server yet: the node shows what to fill in.
      return { ...base, kind, server: draft.servers[0]?.id ?? '', tool: '', arguments: {}, inputs: [] };
    case 'template':
      return { ...base, kind, format: 'text', template: '', inputs: [] };
    case 'assert':
      return { ...base, kind, checks: [{ check: 'non_empty' }] };
    case 'iterate':
      return { ...base, kind, concurrency: 4 };
    case 'collect':
      return { ...base, kind };
    case 'workflow':
      // Left empty on purpose: the inspector picks the stored workflow, which gives it its ports.
      return { ...base, kind, workflow: '', inputs: [], outputs: [] };
    case 'output':
      return { ...base, kind, fields: [{ name: 'result', type: 'any', required: true }] };
  }
}

export function addNode(draft: Draft, kind: NodeKind, position: XY): { draft: Draft; id: string } {
  const id = uniqueId(kind, draft.nodes.map((n) => n.id));
  return { draft: { ...draft, nodes: [...draft.nodes, newNode(kind, id, position, draft)] }, id };
}

const samePort = (a: Edge['to'], b: Edge['to']) => a.node === b.node && a.port === b.port;

/** Connects two ports; an input takes one edge, so a new edge into a connected input replaces the old one. */
export function connect(draft: Draft, edge: Edge): Draft {
  if (draft.edges.some((e) => samePort(e.from, edge.from) && samePort(e.to, edge.to))) return draft;
  return { ...draft, edges: [...draft.edges.filter((e) => !samePort(e.to, edge.to)), edge] };
}

/** Removes nodes (with every edge touching them) and edges (by position in `edges`). */
export function removeElements(draft: Draft, nodeIds: readonly string[], edgeIndices: readonly number[]): Draft {
  const gone = new Set(nodeIds);
  const cut = new Set(edgeIndices);
  return {
    ...draft,
    nodes: draft.nodes.filter((n) => !gone.has(n.id)),
    edges: draft.edges.filter((e, i) => !cut.has(i) && !gone.has(e.from.node) && !gone.has(e.to.node)),
  };
}

export function moveNodes(draft: Draft, positions: Readonly<Record<string, XY>>): Draft {
  return {
    ...draft,
    nodes: draft.nodes.map((n) => {
      const at = positions[n.id];
      return at ? { ...n, position: { x: Math.round(at.x), y: Math.round(at.y) } } : n;
    }),
  };
}

/**
 * Replaces a node with its edited version. A renamed node or port keeps its edges: ports are
 * matched by position, so renaming the second input field renames the edge into it too.
 */
export function replaceNode(draft: Draft, id: string, next: WorkflowNode): Draft {
  const old = draft.nodes.find((n) => n.id === id);
  if (!old) return draft;
  const before = portsOf(old);
  const after = portsOf(next);
  // A name that is still there after the change keeps its edges (a port renamed away from a duplicate of it does not take them along).
  const renamed = (list: readonly { name: string }[], now: readonly { name: string }[]) =>
    new Map(list.flatMap((p, i) => (now[i] && now[i].name !== p.name && now.length === list.length && !now.some((q) => q.name === p.name) ? [[p.name, now[i].name] as const] : [])));
  const inputs = renamed(before.inputs, after.inputs);
  const outputs = renamed(before.outputs, after.outputs);
  const edges = draft.edges.map((e) => ({
    from: e.from.node === id ? { node: next.id, port: outputs.get(e.from.port) ?? e.from.port } : e.from,
    to: e.to.node === id ? { node: next.id, port: inputs.get(e.to.port) ?? e.to.port } : e.to,
  }));
  return { ...draft, nodes: draft.nodes.map((n) => (n.id === id ? next : n)), edges };
}
