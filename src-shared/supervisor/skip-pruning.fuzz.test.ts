import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WorkflowGraph, WorkflowNode, WorkflowNodeInput } from '../workflow/document';
import { indexGraph } from '../workflow/graph-index';
import type { Lineage } from '../workflow/invocation';
import { portsOf } from '../workflow/ports';
import { graphOf } from '../workflow/testing/graphs';
import { SchedulerHarness } from '../workflow/testing/scheduler-harness';
import { skipEffect } from './skip-pruning';

/**
 * The skip-pruning prediction against the scheduler itself, over generated graphs: the host
 * answers every run with every output port (lists nested deep enough to iterate again), except one
 * invocation of one node, which sends nothing. Then every invocation's final status must be what
 * `skipEffect` said: pruned in that lineage → skipped (or never opened), a collect it names →
 * closed with items left out, everything else → done.
 */

/** A value a node sends: where, in which iteration scope, after which iterates' collects. */
type Source = { node: string; port: string; scope: string[]; after: string[] };

const StepArb = fc.record({
  kind: fc.constantFrom('tool', 'template', 'template', 'iterate', 'collect', 'join'),
  picks: fc.array(fc.integer({ min: -4, max: 20 }), { minLength: 1, maxLength: 3 }),
  required: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
});
const RecipeArb = fc.record({
  steps: fc.array(StepArb, { minLength: 1, maxLength: 9 }),
  outputs: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
  outputRequired: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  skipAt: fc.nat(),
  skipWhich: fc.nat(),
});
type Recipe = typeof RecipeArb extends fc.Arbitrary<infer T> ? T : never;

const isPrefix = (short: readonly string[], long: readonly string[]) => short.length <= long.length && short.every((s, i) => long[i] === s);
const MAX_NESTING = 3;

function build(recipe: Recipe): { graph: WorkflowGraph; hosted: string[] } {
  const nodes: WorkflowNodeInput[] = [{ id: 'in', kind: 'input', fields: [{ name: 'a' }, { name: 'b' }] }];
  const sources: Source[] = [
    { node: 'in', port: 'a', scope: [], after: [] },
    { node: 'in', port: 'b', scope: [], after: [] },
  ];
  const edges: string[] = [];
  const hosted: string[] = [];
  const pick = (from: Source[], p: number) => from[p < 0 ? Math.max(0, from.length + p) : p % from.length] as Source;
  recipe.steps.forEach((step, i) => {
    const id = `n${i}`;
    const primary = pick(sources, step.picks[0] ?? -1);
    const nested = sources.filter((s) => s.scope.length > 0);
    if (step.kind === 'iterate' && primary.scope.length < MAX_NESTING) {
      nodes.push({ id, kind: 'iterate', concurrency: 2 });
      edges.push(`${primary.node}.${primary.port}->${id}.list`);
      sources.push({ node: id, port: 'item', scope: [...primary.scope, id], after: primary.after });
      return;
    }
    if (step.kind === 'collect' && nested.length > 0) {
      const src = pick(nested, step.picks[0] ?? -1);
      nodes.push({ id, kind: 'collect' });
      edges.push(`${src.node}.${src.port}->${id}.item`);
      sources.push({ node: id, port: 'list', scope: src.scope.slice(0, -1), after: [...src.after, src.scope.at(-1) ?? ''] });
      return;
    }
    // A join takes up to three values whose scopes nest, never its own iterate's collect.
    const extra = step.kind === 'join' ? step.picks.slice(1).map((p) => pick(sources, p)) : [];
    const inputs = [primary, ...extra.filter((v) => isPrefix(v.scope, primary.scope) && !v.after.some((x) => primary.scope.includes(x)))];
    const unique = inputs.filter((v, k) => inputs.findIndex((w) => w.node === v.node && w.port === v.port) === k);
    const after = [...new Set(unique.flatMap((v) => v.after))];
    const ports = unique.map((_, k) => ({ name: `x${k}`, required: step.required[k] ?? true }));
    unique.forEach((v, k) => edges.push(`${v.node}.${v.port}->${id}.x${k}`));
    hosted.push(id);
    if (step.kind === 'tool') {
      nodes.push({ id, kind: 'tool', server: 'srv', tool: 'work', inputs: ports });
      sources.push({ node: id, port: step.picks.length % 2 ? 'result' : 'text', scope: primary.scope, after });
    } else {
      nodes.push({ id, kind: 'template', template: 'x', inputs: ports });
      sources.push({ node: id, port: 'output', scope: primary.scope, after });
    }
  });
  const top = sources.filter((s) => s.scope.length === 0);
  const picked = [...new Set(recipe.outputs.map((p) => p % top.length))];
  nodes.push({ id: 'out', kind: 'output', fields: picked.map((_, k) => ({ name: `o${k}`, required: recipe.outputRequired[k] ?? true })) });
  picked.forEach((p, k) => edges.push(`${(top[p] as Source).node}.${(top[p] as Source).port}->out.o${k}`));
  return { graph: graphOf(nodes, edges, { servers: [] }), hosted };
}

/** Two of everything, nested: any port's value can be iterated, and its items again. */
const nestedList = (depth: number, tag: string): unknown => (depth === 0 ? tag : [nestedList(depth - 1, `${tag}.0`), nestedList(depth - 1, `${tag}.1`)]);

const lineageExtends = (long: Lineage, short: Lineage) => short.length <= long.length && short.every((s, i) => long[i]?.iterate === s.iterate && long[i]?.index === s.index);

describe('skip pruning over generated graphs (property)', () => {
  it('the scheduler skips exactly the nodes skipEffect prunes in the skipped lineage, runs the rest, and closes the collects it names with items left out', () => {
    let exercised = 0;
    fc.assert(
      fc.property(RecipeArb, (recipe) => {
        const { graph, hosted } = build(recipe);
        if (hosted.length === 0) return;
        const index = indexGraph(graph);
        const skipped = hosted[recipe.skipAt % hosted.length] as string;
        const predicted = skipEffect(index, skipped);
        const pruned = new Set(predicted.pruned);
        const without = new Map(predicted.runs_without.map((r) => [r.node, r.ports] as const));
        const closing = new Set(predicted.closes_without);

        const h = new SchedulerHarness(graph);
        h.send({ type: 'start', inputs: { a: nestedList(MAX_NESTING + 1, 'a'), b: nestedList(MAX_NESTING + 1, 'b') } });
        expect(h.finished?.failure?.code).not.toBe('invalid_graph');
        let skippedLineage: Lineage | undefined;
        let skippedSeen = 0;
        // A node inside an iterate runs once per item: skip its first, second or third; a top-level node runs once.
        const target = (index.scope.get(skipped)?.length ?? 0) === 0 ? 0 : recipe.skipWhich % 3;
        for (let step = 0; step < 5000 && h.running.size > 0; step++) {
          const inv = [...h.running.values()][0];
          if (!inv) break;
          if (inv.node === skipped && skippedLineage === undefined && skippedSeen++ === target) {
            skippedLineage = inv.lineage;
            h.send({ type: 'skipped', id: inv.id, reason: 'skipped by the supervisor' });
            continue;
          }
          const node = index.nodes.get(inv.node) as WorkflowNode;
          h.done(inv.id, Object.fromEntries(portsOf(node).outputs.map((p) => [p.name, nestedList(MAX_NESTING + 1, `${inv.id}.${p.name}`)])));
        }
        expect(h.violations).toEqual([]);
        expect(h.finished).toBeDefined();
        if (!skippedLineage) return;
        exercised += 1;
        const L = skippedLineage;

        const problems: string[] = [];
        for (const c of h.statusCommands()) {
          if (!['done', 'failed', 'skipped', 'cancelled'].includes(c.status)) continue;
          const { node, lineage, id } = c.invocation;
          const inSkippedLineage = lineageExtends(lineage, L);
          if (node === skipped && inSkippedLineage && lineage.length === L.length) {
            if (c.status !== 'skipped') problems.push(`${id} (the skipped invocation) ended ${c.status}`);
            continue;
          }
          const expected = inSkippedLineage && pruned.has(node) ? 'skipped' : 'done';
          if (c.status !== expected) problems.push(`${id} ended ${c.status}, predicted ${expected}`);
          if (closing.has(node) && c.status === 'done' && (lineageExtends(lineage, L) || lineageExtends(L, lineage))) {
            if (typeof c.outputs?.left_out !== 'number' || c.outputs.left_out < 1) problems.push(`${id} closed with nothing left out, predicted a missing item`);
          } else if (index.nodes.get(node)?.kind === 'collect' && c.status === 'done' && c.outputs?.left_out !== 0) {
            problems.push(`${id} left ${String(c.outputs?.left_out)} item(s) out, predicted none`);
          }
        }
        // Every node predicted to run without an input does run there (it is not inside something pruned).
        for (const node of without.keys()) {
          if (!h.statusCommands().some((c) => c.invocation.node === node && c.status === 'done' && lineageExtends(c.invocation.lineage, L))) problems.push(`${node} never ran in the skipped lineage, predicted to run without an input`);
        }
        for (const id of h.runs) {
          const inv = h.get(id);
          const lost = without.get(inv.node);
          if (lost && lineageExtends(inv.lineage, L)) for (const p of lost) if (Object.hasOwn(inv.inputs, p)) problems.push(`${id} ran with ${p}, predicted without`);
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 300 },
    );
    expect(exercised).toBeGreaterThan(200);
  });
});

describe('skip pruning, by example', () => {
  it('a join whose other input already arrived is pruned, not left waiting', () => {
    const graph = graphOf(
      [
        { id: 'in', kind: 'input', fields: [{ name: 'a' }] },
        { id: 'fast', kind: 'template', template: 'x', inputs: [{ name: 'v' }] },
        { id: 'slow', kind: 'template', template: 'y', inputs: [{ name: 'v' }] },
        { id: 'join', kind: 'template', template: '{{l}}{{r}}', inputs: [{ name: 'l' }, { name: 'r' }] },
        { id: 'out', kind: 'output', fields: [{ name: 'o', required: false }] },
      ],
      ['in.a->fast.v', 'in.a->slow.v', 'fast.output->join.l', 'slow.output->join.r', 'join.output->out.o'],
    );
    const effect = skipEffect(indexGraph(graph), 'slow');
    expect(effect.pruned).toEqual(['join']);
    expect(effect.runs_without).toEqual([{ node: 'out', ports: ['o'] }]);

    const h = new SchedulerHarness(graph);
    h.send({ type: 'start', inputs: { a: 'x' } });
    h.done('fast', { output: 'L' });
    h.failed('slow');
    expect(h.status.get('join')).toBe('skipped');
    expect(h.status.get('out')).toBe('done');
  });

  it('an iterate → collect scope still closes, with the items that did arrive', () => {
    const graph = graphOf(
      [
        { id: 'in', kind: 'input', fields: [{ name: 'items' }] },
        { id: 'each', kind: 'iterate' },
        { id: 'work', kind: 'template', template: 'w', inputs: [{ name: 'v' }] },
        { id: 'all', kind: 'collect' },
        { id: 'out', kind: 'output', fields: [{ name: 'list' }] },
      ],
      ['in.items->each.list', 'each.item->work.v', 'work.output->all.item', 'all.list->out.list'],
    );
    const effect = skipEffect(indexGraph(graph), 'work');
    expect(effect).toEqual({ pruned: [], runs_without: [], closes_without: ['all'] });

    const h = new SchedulerHarness(graph);
    h.send({ type: 'start', inputs: { items: ['a', 'b', 'c'] } });
    const [first, second, third] = h.runningOf('work');
    h.done(first?.id ?? '', { output: 'A' });
    h.failed(second?.id ?? '');
    h.done(third?.id ?? '', { output: 'C' });
    expect(h.finished?.outputs).toEqual({ list: ['A', 'C'] });
  });

  it('a skipped node that feeds an iterate prunes the iterate, everything inside it and its collect', () => {
    const graph = graphOf(
      [
        { id: 'in', kind: 'input', fields: [{ name: 'q' }] },
        { id: 'search', kind: 'tool', server: 'srv', tool: 'search', inputs: [{ name: 'q' }] },
        { id: 'each', kind: 'iterate' },
        { id: 'work', kind: 'template', template: 'w', inputs: [{ name: 'v', required: false }] },
        { id: 'all', kind: 'collect' },
        { id: 'out', kind: 'output', fields: [{ name: 'list' }] },
      ],
      ['in.q->search.q', 'search.result->each.list', 'each.item->work.v', 'work.output->all.item', 'all.list->out.list'],
      { servers: [] },
    );
    expect(skipEffect(indexGraph(graph), 'search').pruned).toEqual(['each', 'work', 'all', 'out']);
  });
});
