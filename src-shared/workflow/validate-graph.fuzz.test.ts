import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyGraphs, validDags } from '../../test-support/workflow-graphs';
import type { WorkflowGraph } from './document';
import { validateGraph } from './validate-graph';

/** Whether `node` can reach itself along edges (computed here, independently of the index). */
function onACycle(g: WorkflowGraph, node: string): boolean {
  const seen = new Set<string>();
  const stack = g.edges.filter((e) => e.from.node === node).map((e) => e.to.node);
  for (let at = stack.pop(); at !== undefined; at = stack.pop()) {
    if (at === node) return true;
    if (seen.has(at)) continue;
    seen.add(at);
    stack.push(...g.edges.filter((e) => e.from.node === at).map((e) => e.to.node));
  }
  return false;
}

describe('validateGraph over generated graphs (property)', () => {
  it('a graph with a cycle is always reported, naming a node on the cycle; a graph without one never is', () => {
    fc.assert(
      fc.property(anyGraphs, (g) => {
        const cyclic = g.nodes.some((n) => onACycle(g, n.id));
        const reported = validateGraph(g).filter((p) => p.code === 'cycle');
        expect(reported.length).toBe(cyclic ? 1 : 0);
        if (cyclic) expect(onACycle(g, reported[0]?.node ?? '')).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('random DAGs built from valid pieces (chains, joins, nested fan-outs) validate clean', () => {
    fc.assert(
      fc.property(validDags, ({ graph }) => {
        expect(validateGraph(graph)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('removing any one edge of a valid DAG is reported on the port it fed', () => {
    fc.assert(
      fc.property(
        validDags.chain(({ graph }) => fc.tuple(fc.constant(graph), fc.nat(graph.edges.length - 1))),
        ([graph, drop]) => {
          const removed = graph.edges[drop];
          const problems = validateGraph({ ...graph, edges: graph.edges.filter((_, i) => i !== drop) });
          expect(problems).toContainEqual(expect.objectContaining({ node: removed?.to.node, port: removed?.to.port, code: 'not_connected' }));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('every problem names a node of the graph or an edge of the document, and never throws', () => {
    fc.assert(
      fc.property(anyGraphs, validDags, fc.nat(), (g, { graph }, seed) => {
        // Graft edges of one graph onto another: unknown nodes and ports, mismatches, joins.
        const mixed = { ...graph, edges: [...graph.edges, ...g.edges.slice(0, seed % 4)] };
        for (const p of validateGraph(mixed)) {
          expect(p.node === undefined || mixed.nodes.some((n) => n.id === p.node) || p.edge !== undefined).toBe(true);
          expect(p.message.length).toBeGreaterThan(0);
        }
      }),
    );
  });
});
