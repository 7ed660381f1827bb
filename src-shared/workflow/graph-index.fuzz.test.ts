import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyGraphs, validDags } from '../../test-support/workflow-graphs';
import { indexGraph } from './graph-index';

describe('indexGraph over arbitrary graphs (property)', () => {
  it('a graph with a cycle always names one whose consecutive nodes are joined by edges; otherwise every node is ordered after its sources', () => {
    fc.assert(
      fc.property(anyGraphs, (g) => {
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

  it('every node of a generated fan-out graph gets as many iterates in its scope as enclose it (a collect also counts the one it closes)', () => {
    fc.assert(
      fc.property(validDags, ({ graph, depth }) => {
        const index = indexGraph(graph);
        for (const node of graph.nodes) {
          expect(index.scope.get(node.id)?.length).toBe((depth[node.id] ?? 0) + (node.kind === 'collect' ? 1 : 0));
        }
        expect(index.scopeConflicts).toEqual([]);
      }),
    );
  });
});
