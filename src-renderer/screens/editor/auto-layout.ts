import { moveNodes, type Draft } from './graph-edit';
import { DEFAULT_SIZE, layeredLayout, type Size, type XY } from './layered-layout';

/** React Flow's measured size of a node, when it has one. */
export type Measured = { id: string; measured?: { width?: number; height?: number } };

export function sizesOf(nodes: readonly Measured[]): Map<string, Size> {
  return new Map(nodes.map((n) => [n.id, { w: n.measured?.width ?? DEFAULT_SIZE.w, h: n.measured?.height ?? DEFAULT_SIZE.h }]));
}

/**
 * The draft laid out left to right by layers (one edit: one undo takes it back), starting where the
 * graph's top-left corner was, so it stays about where the person was looking.
 */
export function autoLayout(draft: Draft, sizes: ReadonlyMap<string, Size>): Draft {
  if (draft.nodes.length === 0) return draft;
  const at = layeredLayout(draft.nodes.map((n) => ({ id: n.id, size: sizes.get(n.id) })), draft.edges);
  const old = draft.nodes.flatMap((n) => (n.position ? [n.position] : []));
  const origin: XY = old.length > 0 ? { x: Math.min(...old.map((p) => p.x)), y: Math.min(...old.map((p) => p.y)) } : { x: 0, y: 0 };
  const moved = moveNodes(draft, Object.fromEntries([...at].map(([id, p]) => [id, { x: origin.x + p.x, y: origin.y + p.y }])));
  // Already laid out: no new undo step.
  return JSON.stringify(moved.nodes) === JSON.stringify(draft.nodes) ? draft : moved;
}
