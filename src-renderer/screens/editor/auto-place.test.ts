import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { edge } from '@shared/workflow/testing/graphs';
import { autoPlace, COLUMN_WIDTH, ROW_HEIGHT } from './auto-place';

describe('placing the nodes of a document written without positions', () => {
  it('a chain reads left to right, a fan-out stacks in its column, in document order', () => {
    const placed = autoPlace(['in', 'read', 'a', 'b', 'out'], [edge('in.files->read.files'), edge('read.result->a.x'), edge('read.result->b.x'), edge('a.output->out.a'), edge('b.output->out.b')]);
    expect(Object.fromEntries(placed)).toEqual({
      in: { x: 0, y: 0 },
      read: { x: COLUMN_WIDTH, y: 0 },
      a: { x: 2 * COLUMN_WIDTH, y: 0 },
      b: { x: 2 * COLUMN_WIDTH, y: ROW_HEIGHT },
      out: { x: 3 * COLUMN_WIDTH, y: 0 },
    });
  });

  it('no two nodes share a spot, every edge of an acyclic graph goes rightwards, and a cycle still ends', () => {
    const graph = fc.integer({ min: 1, max: 12 }).chain((n) =>
      fc.record({ n: fc.constant(n), pairs: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 30 }) }),
    );
    fc.assert(
      fc.property(graph, ({ n, pairs }) => {
        const ids = Array.from({ length: n }, (_, i) => `n${i}`);
        const all = pairs.map(([a, b]) => edge(`n${a}.o->n${b}.i`));
        const placed = autoPlace(ids, all);
        expect(new Set([...placed.values()].map((p) => `${p.x},${p.y}`)).size).toBe(n);
        // Forward edges only (a < b) make a DAG: each goes to a column further right.
        const forward = pairs.filter(([a, b]) => a < b);
        const dag = autoPlace(ids, forward.map(([a, b]) => edge(`n${a}.o->n${b}.i`)));
        for (const [a, b] of forward) expect(dag.get(`n${b}`)!.x).toBeGreaterThan(dag.get(`n${a}`)!.x);
      }),
    );
  });
});
