import fc from 'fast-check';
import type { WorkflowGraph, WorkflowNodeInput } from '../src-shared/workflow/document';
import { graphOf, template } from '../src-shared/workflow/testing/graphs';

/**
 * Generated workflow graphs for property tests (validation, scheduler): `validDags` builds graphs
 * only from valid pieces, `anyGraphs` wires template nodes arbitrarily (cycles included).
 */

interface Source {
  node: string;
  port: string;
  type: 'text' | 'list' | 'any';
}

/** A valid DAG and, for each node, how many iterates enclose it. */
export interface GeneratedDag {
  graph: WorkflowGraph;
  depth: Record<string, number>;
}

/**
 * Interprets a stream of choices as a program: chains of templates and asserts, fan-outs
 * (iterate … collect, nested up to 2 deep) over lists, one output. Inside a fan-out every node's
 * first input comes from the item's own scope, so it runs once per item and a collect closes it.
 */
export function dagFromChoices(choices: number[]): GeneratedDag {
  let k = 0;
  const pick = (n: number) => (choices.length === 0 ? 0 : (choices[k++ % choices.length] ?? 0) % n);
  const nodes: WorkflowNodeInput[] = [{ id: 'in', kind: 'input', fields: [{ name: 'q', type: 'text' }, { name: 'items', type: 'list' }] }];
  const edges: string[] = [];
  const depth: Record<string, number> = { in: 0 };
  const scopes: Source[][] = [[{ node: 'in', port: 'q', type: 'text' }, { node: 'in', port: 'items', type: 'list' }]];
  let next = 0;
  const own = () => scopes[scopes.length - 1] as Source[];
  const choose = (from: Source[]) => from[pick(from.length)] as Source;
  const add = (node: WorkflowNodeInput, sources: Source[], ports: string[], produced: Source) => {
    nodes.push(node);
    depth[node.id] = scopes.length - 1;
    sources.forEach((s, i) => edges.push(`${s.node}.${s.port}->${node.id}.${ports[i]}`));
    own().push(produced);
  };
  const block = (level: number): void => {
    const steps = 1 + pick(4);
    for (let s = 0; s < steps; s++) {
      const id = `n${next++}`;
      const kind = pick(level < 2 ? 3 : 2);
      // Outside a fan-out any value will do; inside, the first input keeps the node in the item's scope.
      const first = () => choose(own());
      if (kind === 0) {
        const ports = Array.from({ length: 1 + pick(3) }, (_, i) => `p${i}`);
        const sources = ports.map((_, i) => (i === 0 ? first() : choose(scopes.flat())));
        add(template(id, ports.map((p) => `{{${p}}}`).join(' '), ...ports), sources, ports, { node: id, port: 'output', type: 'text' });
      } else if (kind === 1) {
        add({ id, kind: 'assert', checks: [{ check: 'non_empty' }] }, [first()], ['value'], { node: id, port: 'value', type: 'any' });
      } else {
        const lists = own().filter((x) => x.type !== 'text');
        if (lists.length === 0) continue;
        nodes.push({ id, kind: 'iterate', concurrency: 1 + pick(4) });
        depth[id] = scopes.length - 1;
        const list = choose(lists);
        edges.push(`${list.node}.${list.port}->${id}.list`);
        scopes.push([{ node: id, port: 'item', type: 'any' }]);
        block(level + 1);
        const item = choose(own());
        scopes.pop();
        add({ id: `${id}_c`, kind: 'collect' }, [item], ['item'], { node: `${id}_c`, port: 'list', type: 'list' });
      }
    }
  };
  block(0);
  const result = choose(own());
  nodes.push({ id: 'out', kind: 'output', fields: [{ name: 'result' }] });
  depth.out = 0;
  edges.push(`${result.node}.${result.port}->out.result`);
  return { graph: graphOf(nodes, edges), depth };
}

export const validDags: fc.Arbitrary<GeneratedDag> = fc.array(fc.nat(), { minLength: 1, maxLength: 60 }).map(dagFromChoices);

/** Up to 8 template nodes with inputs x0..x7 and arbitrary edges between them, cycles included. */
export const anyGraphs: fc.Arbitrary<WorkflowGraph> = fc
  .integer({ min: 1, max: 8 })
  .chain((n) => fc.tuple(fc.constant(n), fc.uniqueArray(fc.tuple(fc.nat(n - 1), fc.nat(n - 1), fc.nat(7)), { maxLength: 16, selector: ([, to, port]) => `${to}.${port}` })))
  .map(([n, pairs]) => {
    const inputs = Array.from({ length: 8 }, (_, i) => ({ name: `x${i}`, required: false }));
    const nodes = Array.from({ length: n }, (_, i): WorkflowNodeInput => ({ id: `n${i}`, kind: 'template', template: '', inputs }));
    return graphOf(nodes, pairs.map(([from, to, port]) => `n${from}.output->n${to}.x${port}`));
  });
