import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIZE } from './layered-layout';
import { freeSpot, MARGIN, type Box } from './placement';

const overlaps = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
const box = (x: number, y: number, w = DEFAULT_SIZE.w, h = DEFAULT_SIZE.h): Box => ({ x, y, w, h });

describe('placing a new node', () => {
  it('goes exactly where it was dropped or asked for when nothing is there', () => {
    expect(freeSpot([box(0, 0)], { x: 600.4, y: 10.6 })).toEqual({ x: 600, y: 11 });
  });

  it('dropped on another node, it goes to the nearest clear spot beside it, not under it', () => {
    const taken = [box(0, 0)];
    const p = freeSpot(taken, { x: 20, y: 20 });
    expect(overlaps({ ...p, ...DEFAULT_SIZE }, taken[0]!)).toBe(false);
    expect(Math.hypot(p.x - 20, p.y - 20)).toBeLessThan(DEFAULT_SIZE.w + DEFAULT_SIZE.h);
  });

  it("keeps clear of a node's measured size, not a guess: a tall agent node pushes it further down", () => {
    const tall = box(0, 0, 280, 420);
    const p = freeSpot([tall], { x: 0, y: 100 }, DEFAULT_SIZE, box(0, 0, 300, 2000));
    expect(p.y).toBeGreaterThanOrEqual(420 + MARGIN);
  });

  it('added many times in a row at the same spot, no two of the new nodes overlap and all stay in view while there is room', () => {
    const view = box(-200, -100, 1400, 900);
    const boxes: Box[] = [box(0, 80), box(420, 80)];
    for (let i = 0; i < 8; i++) {
      const p = freeSpot(boxes, { x: 300, y: 120 }, DEFAULT_SIZE, view);
      const next = { ...p, ...DEFAULT_SIZE };
      for (const b of boxes) expect(overlaps(next, b)).toBe(false);
      expect(next.x >= view.x && next.y >= view.y && next.x + next.w <= view.x + view.w && next.y + next.h <= view.y + view.h, `node ${i} in view`).toBe(true);
      boxes.push(next);
    }
  });

  it('never overlaps any node, however crowded the canvas', () => {
    const boxes = fc.array(fc.record({ x: fc.integer({ min: -2000, max: 2000 }), y: fc.integer({ min: -2000, max: 2000 }), w: fc.integer({ min: 50, max: 500 }), h: fc.integer({ min: 50, max: 500 }) }), { maxLength: 60 });
    fc.assert(
      fc.property(boxes, fc.integer({ min: -2000, max: 2000 }), fc.integer({ min: -2000, max: 2000 }), (taken, x, y) => {
        const p = freeSpot(taken, { x, y });
        for (const b of taken) expect(overlaps({ ...p, ...DEFAULT_SIZE }, b)).toBe(false);
      }),
    );
  });
});
