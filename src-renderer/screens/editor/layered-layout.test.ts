import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { edge } from '@shared/workflow/testing/graphs';
import { DEFAULT_SIZE, GAP, layeredLayout, type Size } from './layered-layout';

const overlap = (a: { x: number; y: number }, sa: Size, b: { x: number; y: number }, sb: Size) => a.x < b.x + sb.w && b.x < a.x + sa.w && a.y < b.y + sb.h && b.y < a.y + sa.h;

describe('auto-layout: the graph left to right by topological layers', () => {
  it('a chain reads left to right on one row, whatever order the document lists it in', () => {
    const at = layeredLayout([{ id: 'out' }, { id: 'b' }, { id: 'in' }, { id: 'a' }], [edge('in.x->a.x'), edge('a.x->b.x'), edge('b.x->out.x')]);
    const step = DEFAULT_SIZE.w + GAP.x;
    expect(Object.fromEntries(at)).toEqual({ in: { x: 0, y: 0 }, a: { x: step, y: 0 }, b: { x: 2 * step, y: 0 }, out: { x: 3 * step, y: 0 } });
  });

  it('a fan-out stacks in its column and the single nodes around it sit at its middle', () => {
    const at = layeredLayout([{ id: 'in' }, { id: 'a' }, { id: 'b' }, { id: 'out' }], [edge('in.x->a.x'), edge('in.x->b.x'), edge('a.x->out.a'), edge('b.x->out.b')]);
    const middle = (at.get('a')!.y + at.get('b')!.y) / 2;
    expect(at.get('a')!.x).toBe(at.get('b')!.x);
    expect(at.get('b')!.y - at.get('a')!.y).toBe(DEFAULT_SIZE.h + GAP.y);
    expect(at.get('in')!.y).toBe(middle);
    expect(at.get('out')!.y).toBe(middle);
  });

  it("a column is ordered by its neighbours' rows, so two parallel chains do not cross", () => {
    // The document lists the second column crossed: a1 feeds b2, a2 feeds b1.
    const at = layeredLayout([{ id: 'a1' }, { id: 'a2' }, { id: 'b1' }, { id: 'b2' }], [edge('a1.x->b2.x'), edge('a2.x->b1.x')]);
    expect(at.get('b2')!.y).toBeLessThan(at.get('b1')!.y);
  });

  it("uses each node's measured size: a wide column pushes the next one right, a tall node the one below it down", () => {
    const at = layeredLayout(
      [
        { id: 'wide', size: { w: 500, h: 100 } },
        { id: 'tall', size: { w: 200, h: 400 } },
        { id: 'next', size: { w: 200, h: 100 } },
      ],
      [edge('wide.x->next.x')],
    );
    expect(at.get('next')!.x).toBe(500 + GAP.x);
    expect(at.get('tall')!.y - at.get('wide')!.y).toBe(100 + GAP.y);
  });

  it('no two nodes overlap, every edge of an acyclic graph goes rightwards, a cycle still ends, and the same graph lays out the same way', () => {
    const graph = fc.integer({ min: 1, max: 14 }).chain((n) =>
      fc.record({
        sizes: fc.array(fc.record({ w: fc.integer({ min: 80, max: 400 }), h: fc.integer({ min: 40, max: 400 }) }), { minLength: n, maxLength: n }),
        pairs: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 30 }),
      }),
    );
    fc.assert(
      fc.property(graph, ({ sizes, pairs }) => {
        const nodes = sizes.map((size, i) => ({ id: `n${i}`, size }));
        const all = pairs.map(([a, b]) => edge(`n${a}.o->n${b}.i`));
        const at = layeredLayout(nodes, all);
        expect(at.size).toBe(nodes.length);
        for (const a of nodes) for (const b of nodes) if (a.id < b.id) expect(overlap(at.get(a.id)!, a.size, at.get(b.id)!, b.size), `${a.id} on ${b.id}`).toBe(false);
        expect(layeredLayout(nodes, all)).toEqual(at);
        // Forward edges only (a < b) make a DAG: each goes to a column further right.
        const forward = pairs.filter(([a, b]) => a < b);
        const dag = layeredLayout(nodes, forward.map(([a, b]) => edge(`n${a}.o->n${b}.i`)));
        for (const [a, b] of forward) expect(dag.get(`n${b}`)!.x).toBeGreaterThan(dag.get(`n${a}`)!.x);
      }),
    );
  });
});
