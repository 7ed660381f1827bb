import type { Edge } from '@shared/workflow/document';

export type XY = { x: number; y: number };
export type Size = { w: number; h: number };

/** A node's room when React Flow has not measured it yet (styles.css: a node is at most 280 px wide). */
export const DEFAULT_SIZE: Size = { w: 280, h: 160 };
export const GAP = { x: 80, y: 40 } as const;

/**
 * "Auto-layout": the graph left to right by topological layers (Sugiyama's steps, small): cycles
 * cut at their back edges, each node in the column of its longest path from a source, each column
 * ordered by its neighbours' average row (a few sweeps, to uncross edges), then the columns placed
 * side by side and centred on each other with the nodes' own sizes, so no two overlap.
 * Deterministic: the same graph always lays out the same way.
 */
export function layeredLayout(nodes: readonly { id: string; size?: Size }[], edges: readonly Edge[]): Map<string, XY> {
  const ids = nodes.map((n) => n.id);
  const known = new Set(ids);
  const links = edges.filter((e) => known.has(e.from.node) && known.has(e.to.node) && e.from.node !== e.to.node);
  const forward = acyclic(ids, links);
  const layer = longestPathLayers(ids, forward);
  const columns = orderColumns(ids, layer, forward);
  return place(columns, new Map(nodes.map((n) => [n.id, n.size ?? DEFAULT_SIZE])));
}

/** The edges left once each cycle is cut where a depth-first walk in document order meets it again. */
function acyclic(ids: readonly string[], links: readonly Edge[]): [string, string][] {
  const out = new Map(ids.map((id) => [id, [] as string[]]));
  for (const e of links) out.get(e.from.node)?.push(e.to.node);
  const state = new Map<string, 'open' | 'done'>();
  const kept: [string, string][] = [];
  // Iterative, so a long chain cannot overflow the stack.
  for (const root of ids) {
    if (state.has(root)) continue;
    state.set(root, 'open');
    const stack: { id: string; next: number }[] = [{ id: root, next: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const targets = out.get(top.id) ?? [];
      if (top.next >= targets.length) {
        state.set(top.id, 'done');
        stack.pop();
        continue;
      }
      const to = targets[top.next++]!;
      const seen = state.get(to);
      if (seen === 'open') continue; // a back edge: the cycle is cut here
      kept.push([top.id, to]);
      if (seen === undefined) {
        state.set(to, 'open');
        stack.push({ id: to, next: 0 });
      }
    }
  }
  return kept;
}

/** Each node's column: 0 for a source, else one past its furthest predecessor (Kahn's order). */
function longestPathLayers(ids: readonly string[], forward: readonly [string, string][]): Map<string, number> {
  const layer = new Map(ids.map((id) => [id, 0]));
  const indegree = new Map(ids.map((id) => [id, 0]));
  const out = new Map(ids.map((id) => [id, [] as string[]]));
  for (const [a, b] of forward) {
    out.get(a)?.push(b);
    indegree.set(b, (indegree.get(b) ?? 0) + 1);
  }
  const ready = ids.filter((id) => indegree.get(id) === 0);
  for (let i = 0; i < ready.length; i++) {
    const id = ready[i]!;
    for (const to of out.get(id) ?? []) {
      layer.set(to, Math.max(layer.get(to) ?? 0, (layer.get(id) ?? 0) + 1));
      const left = (indegree.get(to) ?? 0) - 1;
      indegree.set(to, left);
      if (left === 0) ready.push(to);
    }
  }
  return layer;
}

const SWEEPS = 4;

/** The columns, each ordered by barycentre: down the layers by predecessors, back up by successors. */
function orderColumns(ids: readonly string[], layer: ReadonlyMap<string, number>, forward: readonly [string, string][]): string[][] {
  const count = Math.max(0, ...layer.values()) + 1;
  const columns: string[][] = Array.from({ length: count }, () => []);
  for (const id of ids) columns[layer.get(id) ?? 0]!.push(id);
  const preds = new Map(ids.map((id) => [id, [] as string[]]));
  const succs = new Map(ids.map((id) => [id, [] as string[]]));
  for (const [a, b] of forward) {
    succs.get(a)?.push(b);
    preds.get(b)?.push(a);
  }
  const row = new Map<string, number>();
  const index = () => columns.forEach((col) => col.forEach((id, i) => row.set(id, i)));
  index();
  const reorder = (col: string[], by: ReadonlyMap<string, string[]>) => {
    const centre = new Map(
      col.map((id, i) => {
        const near = (by.get(id) ?? []).map((n) => row.get(n) ?? 0);
        // A node with no neighbour on that side keeps its place.
        return [id, near.length > 0 ? near.reduce((s, r) => s + r, 0) / near.length : i];
      }),
    );
    // Stable: equal centres keep the order they had.
    col.sort((a, b) => (centre.get(a) ?? 0) - (centre.get(b) ?? 0));
    col.forEach((id, i) => row.set(id, i));
  };
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    if (sweep % 2 === 0) for (let c = 1; c < count; c++) reorder(columns[c]!, preds);
    else for (let c = count - 2; c >= 0; c--) reorder(columns[c]!, succs);
  }
  return columns;
}

/** Columns side by side, each as wide as its widest node; each stacked and centred on the tallest. */
function place(columns: readonly string[][], sizes: ReadonlyMap<string, Size>): Map<string, XY> {
  const size = (id: string) => sizes.get(id) ?? DEFAULT_SIZE;
  const heights = columns.map((col) => col.reduce((s, id) => s + size(id).h, 0) + GAP.y * Math.max(0, col.length - 1));
  const tallest = Math.max(0, ...heights);
  const placed = new Map<string, XY>();
  let x = 0;
  columns.forEach((col, c) => {
    let y = Math.round((tallest - (heights[c] ?? 0)) / 2);
    for (const id of col) {
      placed.set(id, { x, y });
      y += size(id).h + GAP.y;
    }
    x += Math.max(0, ...col.map((id) => size(id).w)) + GAP.x;
  });
  return placed;
}
