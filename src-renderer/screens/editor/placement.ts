import { DEFAULT_SIZE, type Size, type XY } from './layered-layout';

export type Box = XY & Size;

/** Room kept around a new node, so its ports and edges stay clear of its neighbours'. */
export const MARGIN = 24;
const RINGS = 16;

const clearOf = (boxes: readonly Box[], p: XY, size: Size) =>
  boxes.every((b) => p.x + size.w + MARGIN <= b.x || b.x + b.w + MARGIN <= p.x || p.y + size.h + MARGIN <= b.y || b.y + b.h + MARGIN <= p.y);

const inside = (view: Box, p: XY, size: Size) => p.x >= view.x && p.y >= view.y && p.x + size.w <= view.x + view.w && p.y + size.h <= view.y + view.h;

/**
 * Where a new node goes: `at` itself when that is clear of every node (their measured boxes, with a
 * margin), else the nearest clear spot around it on a half-node grid — inside `view` (the part of
 * the canvas on screen) when one is there, so a node added from the palette, dropped on another or
 * added many times in a row is never hidden under another and stays in sight.
 */
export function freeSpot(boxes: readonly Box[], at: XY, size: Size = DEFAULT_SIZE, view?: Box): XY {
  const start = { x: Math.round(at.x), y: Math.round(at.y) };
  if (clearOf(boxes, start, size)) return start;
  const step = { x: Math.round((size.w + MARGIN) / 2), y: Math.round((size.h + MARGIN) / 2) };
  const spots: { p: XY; seen: boolean; d: number; order: number }[] = [];
  for (let i = -RINGS; i <= RINGS; i++) {
    for (let j = -RINGS; j <= RINGS; j++) {
      const p = { x: start.x + i * step.x, y: start.y + j * step.y };
      // Nearest first; at the same distance below and to the right first (reading order).
      spots.push({ p, seen: view ? inside(view, p, size) : true, d: Math.hypot(i * step.x, j * step.y), order: (j < 0 ? 2 : 0) + (i < 0 ? 1 : 0) });
    }
  }
  spots.sort((a, b) => Number(b.seen) - Number(a.seen) || a.d - b.d || a.order - b.order);
  // A crowded canvas: below everything, where nothing can be.
  return spots.find((s) => clearOf(boxes, s.p, size))?.p ?? { x: start.x, y: Math.max(...boxes.map((b) => b.y + b.h)) + MARGIN };
}
