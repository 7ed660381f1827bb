import type { Edge } from '@shared/workflow/document';

/** A node is at most 280 px wide (styles.css .wf-node): the rest is room for the edges. */
export const COLUMN_WIDTH = 320;
export const ROW_HEIGHT = 160;

/**
 * Where the nodes of a document written without positions go (a file from the CLI, the API or a
 * hand): in columns by their depth along the edges, sources on the left, each column's rows in
 * document order, so a chain reads left to right and a fan-out stacks. Only the structure decides,
 * so a node keeps its spot while others are dragged. A cycle (a draft mid-edit) is cut off after as
 * many passes as there are nodes.
 */
export function autoPlace(nodeIds: readonly string[], edges: readonly Edge[]): Map<string, { x: number; y: number }> {
  const depth = new Map(nodeIds.map((id) => [id, 0]));
  for (let pass = 0; pass < nodeIds.length; pass++) {
    let moved = false;
    for (const e of edges) {
      const from = depth.get(e.from.node);
      const to = depth.get(e.to.node);
      if (from === undefined || to === undefined || to > from) continue;
      depth.set(e.to.node, from + 1);
      moved = true;
    }
    if (!moved) break;
  }
  const rows = new Map<number, number>();
  const placed = new Map<string, { x: number; y: number }>();
  for (const id of nodeIds) {
    const column = depth.get(id) ?? 0;
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    placed.set(id, { x: column * COLUMN_WIDTH, y: row * ROW_HEIGHT });
  }
  return placed;
}
