import type { Edge, WorkflowGraph, WorkflowNode } from './document';
import { portsOf, type NodePorts } from './ports';

/** An edge with its position in the document (problems and editors point at it by number). */
export type IndexedEdge = Edge & { index: number };

/** Edges by port name. */
export type EdgesByPort = ReadonlyMap<string, readonly IndexedEdge[]>;

/**
 * What the validator, the scheduler and the runner all need to know about a graph's shape,
 * computed once. Derived from the graph alone (never stored): rebuild it from the workflow whenever it changes.
 */
export interface GraphIndex {
  graph: WorkflowGraph;
  nodes: ReadonlyMap<string, WorkflowNode>;
  ports: ReadonlyMap<string, NodePorts>;
  /** node → input port → edges arriving there (only edges whose both nodes exist). */
  incoming: ReadonlyMap<string, EdgesByPort>;
  /** node → output port → edges leaving there (only edges whose both nodes exist). */
  outgoing: ReadonlyMap<string, EdgesByPort>;
  /** Every node not on or below a cycle, each after the nodes feeding it; ties in document order. */
  order: readonly string[];
  /** The nodes of one cycle, in edge order starting at the earliest in the document; absent when acyclic. */
  cycle?: string[];
  /**
   * node → the iterate ids above it, outermost first. An iterate's own scope excludes itself
   * (its `item` output is one level deeper); a collect's scope includes the iterate it closes.
   */
  scope: ReadonlyMap<string, readonly string[]>;
  /** collect → the iterate it closes (the innermost of its scope); absent for a collect with none. */
  closes: ReadonlyMap<string, string>;
  /** Nodes where values of unrelated iteration scopes meet (neither scope contains the other). */
  scopeConflicts: Array<{ node: string; scopes: string[][] }>;
}

const NO_EDGES: EdgesByPort = new Map();

export function indexGraph(graph: WorkflowGraph): GraphIndex {
  const nodes = new Map(graph.nodes.map((n) => [n.id, n] as const));
  const ports = new Map(graph.nodes.map((n) => [n.id, portsOf(n)] as const));
  const incoming = new Map(graph.nodes.map((n) => [n.id, new Map<string, IndexedEdge[]>()] as const));
  const outgoing = new Map(graph.nodes.map((n) => [n.id, new Map<string, IndexedEdge[]>()] as const));
  graph.edges.forEach((e, index) => {
    const into = incoming.get(e.to.node);
    const from = outgoing.get(e.from.node);
    if (!into || !from) return;
    const indexed = { ...e, index };
    const arriving = into.get(e.to.port) ?? [];
    const leaving = from.get(e.from.port) ?? [];
    arriving.push(indexed);
    leaving.push(indexed);
    into.set(e.to.port, arriving);
    from.set(e.from.port, leaving);
  });

  const order = topologicalOrder(graph, incoming, outgoing);
  const cycle = order.length < graph.nodes.length ? findCycle(graph, outgoing, new Set(order)) : undefined;
  const { scope, closes, scopeConflicts } = iterationScopes(order, nodes, incoming);
  return { graph, nodes, ports, incoming, outgoing, order, ...(cycle ? { cycle } : {}), scope, closes, scopeConflicts };
}

/** The edges arriving at one input port (empty when none or the node is unknown). */
export function edgesInto(index: GraphIndex, node: string, port: string): readonly IndexedEdge[] {
  return (index.incoming.get(node) ?? NO_EDGES).get(port) ?? [];
}

/** The edges leaving one output port. */
export function edgesFrom(index: GraphIndex, node: string, port: string): readonly IndexedEdge[] {
  return (index.outgoing.get(node) ?? NO_EDGES).get(port) ?? [];
}

/** The scope of the values a node sends: an iterate opens a level, a collect closes its innermost. */
export function sentScope(index: GraphIndex, node: string): string[] {
  return scopeSent(index.nodes.get(node), index.scope.get(node) ?? []);
}

function scopeSent(node: WorkflowNode | undefined, own: readonly string[]): string[] {
  if (node?.kind === 'iterate') return [...own, node.id];
  if (node?.kind === 'collect') return own.slice(0, -1);
  return [...own];
}

function allEdges(byPort: EdgesByPort | undefined): IndexedEdge[] {
  return [...(byPort ?? NO_EDGES).values()].flat();
}

/** Kahn's algorithm, always taking the earliest ready node in the document (a stable order for people). */
function topologicalOrder(graph: WorkflowGraph, incoming: Map<string, EdgesByPort>, outgoing: Map<string, EdgesByPort>): string[] {
  const position = new Map(graph.nodes.map((n, i) => [n.id, i] as const));
  const waiting = new Map(graph.nodes.map((n) => [n.id, allEdges(incoming.get(n.id)).length] as const));
  // Ready nodes by document position, kept in a min-heap: a wide graph stays O(n log n).
  const ready = new MinHeap();
  graph.nodes.forEach((n, i) => waiting.get(n.id) === 0 && ready.push(i));
  const order: string[] = [];
  for (let at = ready.pop(); at !== undefined; at = ready.pop()) {
    const id = (graph.nodes[at] as WorkflowNode).id;
    order.push(id);
    for (const e of allEdges(outgoing.get(id))) {
      const left = (waiting.get(e.to.node) ?? 0) - 1;
      waiting.set(e.to.node, left);
      if (left === 0) ready.push(position.get(e.to.node) ?? 0);
    }
  }
  return order;
}

class MinHeap {
  private readonly items: number[] = [];

  push(value: number): void {
    const items = this.items;
    items.push(value);
    for (let i = items.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if ((items[parent] as number) <= value) break;
      items[i] = items[parent] as number;
      items[parent] = value;
      i = parent;
    }
  }

  pop(): number | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < items.length && (items[l] as number) < (items[least] as number)) least = l;
      if (r < items.length && (items[r] as number) < (items[least] as number)) least = r;
      if (least === i) break;
      [items[i], items[least]] = [items[least] as number, items[i] as number];
      i = least;
    }
    return top;
  }
}

/**
 * One cycle among the nodes Kahn could not order. Every such node has a predecessor that is also
 * unordered, so walking predecessors must revisit a node; the revisited stretch is a cycle.
 */
function findCycle(graph: WorkflowGraph, outgoing: Map<string, EdgesByPort>, ordered: Set<string>): string[] {
  const predecessor = new Map<string, string>();
  for (const n of graph.nodes) {
    if (ordered.has(n.id)) continue;
    for (const e of allEdges(outgoing.get(n.id))) {
      if (!ordered.has(e.to.node) && !predecessor.has(e.to.node)) predecessor.set(e.to.node, n.id);
    }
  }
  const start = graph.nodes.find((n) => !ordered.has(n.id))?.id as string;
  const seen: string[] = [];
  let at = start;
  while (!seen.includes(at)) {
    seen.push(at);
    at = predecessor.get(at) as string;
  }
  // `seen` walks backwards along edges; the cycle is from `at` onwards, reversed into edge order.
  const cycle = seen.slice(seen.indexOf(at)).reverse();
  const position = new Map(graph.nodes.map((n, i) => [n.id, i] as const));
  const first = cycle.reduce((best, id, i) => ((position.get(id) ?? 0) < (position.get(cycle[best] ?? '') ?? 0) ? i : best), 0);
  return [...cycle.slice(first), ...cycle.slice(0, first)];
}

function iterationScopes(order: readonly string[], nodes: Map<string, WorkflowNode>, incoming: Map<string, EdgesByPort>) {
  const scope = new Map<string, string[]>();
  const closes = new Map<string, string>();
  const scopeConflicts: Array<{ node: string; scopes: string[][] }> = [];
  const sent = (id: string): string[] => scopeSent(nodes.get(id), scope.get(id) ?? []);
  for (const id of order) {
    const arriving = allEdges(incoming.get(id)).map((e) => sent(e.from.node));
    // An outer-scope value is shared by every item below it: the node runs at the deepest scope.
    let deepest: string[] = [];
    const unrelated: string[][] = [];
    for (const s of arriving) {
      if (isPrefix(s, deepest)) continue;
      if (isPrefix(deepest, s)) deepest = s;
      else if (!unrelated.some((u) => sameScope(u, s))) unrelated.push(s);
    }
    if (unrelated.length > 0) scopeConflicts.push({ node: id, scopes: [deepest, ...unrelated] });
    scope.set(id, deepest);
    const closed = deepest.at(-1);
    if (nodes.get(id)?.kind === 'collect' && closed !== undefined) closes.set(id, closed);
  }
  return { scope, closes, scopeConflicts };
}

function isPrefix(short: readonly string[], long: readonly string[]): boolean {
  return short.length <= long.length && short.every((s, i) => long[i] === s);
}

function sameScope(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && isPrefix(a, b);
}
