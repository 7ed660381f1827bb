import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexGraph } from './graph-index';
import { graphOf, template } from './testing/graphs';

/** Up to 8 template nodes, each with inputs x0..x7, and arbitrary edges between them (cycles included). */
const randomGraphs = fc
  .integer({ min: 1, max: 8 })
  .chain((n) =>
    fc.tuple(
      fc.constant(n),
      fc.uniqueArray(fc.tuple(fc.nat(n - 1), fc.nat(n - 1), fc.nat(7)), { maxLength: 16, selector: ([, to, port]) => `${to}.${port}` }),
    ),
  )
  .map(([n, pairs]) => {
    const inputs = Array.from({ length: 8 }, (_, i) => `x${i}`);
    const nodes = Array.from({ length: n }, (_, i) => template(`n${i}`, '', ...inputs));
    return graphOf(nodes, pairs.map(([from, to, port]) => `n${from}.output->n${to}.x${port}`));
  });

describe('indexGraph over arbitrary graphs (property)', () => {
  it('a graph with a cycle always names one whose consecutive nodes are joined by edges; otherwise every node is ordered after its sources', () => {
    fc.assert(
      fc.property(randomGraphs, (g) => {
        const index = indexGraph(g);
        const has = (a: string, b: string) => g.edges.some((e) => e.from.node === a && e.to.node === b);
        if (index.cycle) {
          expect(index.cycle.length).toBeGreaterThan(0);
          index.cycle.forEach((id, i) => expect(has(id, index.cycle?.[(i + 1) % (index.cycle?.length ?? 1)] ?? '')).toBe(true));
          expect(index.order.some((id) => index.cycle?.includes(id))).toBe(false);
        } else {
          expect([...index.order].sort()).toEqual(g.nodes.map((n) => n.id).sort());
        }
        const at = new Map(index.order.map((id, i) => [id, i] as const));
        for (const e of g.edges) {
          if (at.has(e.to.node)) expect(at.get(e.from.node)).toBeLessThan(at.get(e.to.node) ?? -1);
        }
      }),
      { numRuns: 300 },
    );
  });
});
