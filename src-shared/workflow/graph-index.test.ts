import { describe, expect, it } from 'vitest';
import { indexGraph } from './graph-index';
import { countingGraph } from './testing/counting-graph';
import { wideGraph } from './testing/scale-graphs';
import { collect, graphOf, input, iterate, output, template } from './testing/graphs';

describe('indexGraph', () => {
  it('orders every node after the nodes feeding it, ties in document order', () => {
    const g = graphOf(
      [output('out', 'text'), template('b', '{{x}}', 'x'), template('a', '{{q}}', 'q'), input('in', 'q')],
      ['in.q->a.q', 'a.output->b.x', 'b.output->out.text'],
    );
    const index = indexGraph(g);
    expect(index.order).toEqual(['in', 'a', 'b', 'out']);
    expect(index.cycle).toBeUndefined();
  });

  it('lists incoming and outgoing edges by node and port, with their position in the document', () => {
    const g = graphOf([input('in', 'q'), template('a', '{{q}}', 'q'), output('out', 'x', 'y')], ['in.q->a.q', 'a.output->out.x', 'a.output->out.y']);
    const index = indexGraph(g);
    expect(index.incoming.get('out')?.get('y')).toEqual([{ ...g.edges[2], index: 2 }]);
    expect(index.outgoing.get('a')?.get('output')?.map((e) => e.index)).toEqual([1, 2]);
    expect(index.incoming.get('in')?.size).toBe(0);
    expect(index.nodes.get('a')?.kind).toBe('template');
    expect(index.ports.get('a')?.outputs.map((p) => p.name)).toEqual(['output']);
  });

  it('names the nodes of a cycle and leaves them out of the order', () => {
    const g = graphOf(
      [input('in', 'q'), template('a', '{{q}}{{z}}', 'q', 'z'), template('b', '{{x}}', 'x'), output('out', 'text')],
      ['in.q->a.q', 'a.output->b.x', 'b.output->a.z', 'b.output->out.text'],
    );
    const index = indexGraph(g);
    expect(index.cycle).toEqual(['a', 'b']);
    expect(index.order).toEqual(['in']);
  });

  it('gives each node its stack of iterates, opened by an iterate and closed by a collect', () => {
    const g = graphOf(
      [input('in', 'list'), iterate('outer'), iterate('inner'), template('t', '{{x}}', 'x'), collect('c1'), collect('c2'), output('out', 'list')],
      ['in.list->outer.list', 'outer.item->inner.list', 'inner.item->t.x', 't.output->c1.item', 'c1.list->c2.item', 'c2.list->out.list'],
    );
    const index = indexGraph(g);
    expect(index.scope.get('outer')).toEqual([]);
    expect(index.scope.get('inner')).toEqual(['outer']);
    expect(index.scope.get('t')).toEqual(['outer', 'inner']);
    expect(index.scope.get('c1')).toEqual(['outer', 'inner']);
    expect(index.scope.get('c2')).toEqual(['outer']);
    expect(index.scope.get('out')).toEqual([]);
    expect(index.closes.get('c1')).toBe('inner');
    expect(index.closes.get('c2')).toBe('outer');
  });

  it('an outer-scope value joining an item takes the item scope; unrelated scopes meeting are recorded', () => {
    const g = graphOf(
      [input('in', 'list', 'other', 'q'), iterate('i1'), iterate('i2'), template('join', '{{a}}{{b}}', 'a', 'b'), template('bad', '{{a}}{{b}}', 'a', 'b')],
      ['in.list->i1.list', 'in.other->i2.list', 'i1.item->join.a', 'in.q->join.b', 'i1.item->bad.a', 'i2.item->bad.b'],
    );
    const index = indexGraph(g);
    expect(index.scope.get('join')).toEqual(['i1']);
    expect(index.scopeConflicts).toEqual([{ node: 'bad', scopes: [['i1'], ['i2']] }]);
  });

  it('ignores edges to nodes that do not exist (validation reports them)', () => {
    const g = graphOf([input('in', 'q'), output('out', 'q')], ['in.q->out.q', 'in.q->ghost.q', 'ghost.x->out.q']);
    const index = indexGraph(g);
    expect(index.order).toEqual(['in', 'out']);
    expect(index.incoming.get('out')?.get('q')?.map((e) => e.index)).toEqual([0]);
  });
});

/** Reads of one node or edge (with its ends) indexing may make: a constant, whatever the graph's size (16.5 today). */
const PER_ELEMENT = 25;

describe('indexGraph at scale', () => {
  it('orders a graph of 20,000 nodes (many ready at once) reading each node and edge a bounded number of times', () => {
    // Counted, not timed (bench/shared-scale.ts times it): reads of the graph grow linearly from 10,000 to 20,000 nodes.
    const wide = (n: number) => {
      const counting = countingGraph(wideGraph(n));
      const index = indexGraph(counting.graph);
      expect(index.order).toHaveLength(n + 1);
      expect(index.order[1]).toBe('t0');
      expect(index.order.at(-1)).toBe(`t${n - 1}`);
      return counting.reads();
    };
    const [half, full] = [wide(10_000), wide(20_000)];
    expect(full).toBeLessThanOrEqual(PER_ELEMENT * 2 * 20_000);
    expect(full).toBeLessThanOrEqual(2 * half + 100); // linear: twice the graph, twice the reads (plus a fixed cost)
  });
});
