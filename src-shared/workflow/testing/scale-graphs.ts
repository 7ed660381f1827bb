import type { WorkflowGraph, WorkflowNodeInput } from '../document';
import { collect, graphOf, input, iterate, output, template } from './graphs';

/** A chain of `n` fan-outs (iterate → template → collect), each collecting into the next: 3n + 2 nodes, 3n + 1 edges. */
export function fanOutChain(n: number): WorkflowGraph {
  const nodes: WorkflowNodeInput[] = [{ id: 'in', kind: 'input', fields: [{ name: 'xs', type: 'list' }] }];
  const edges: string[] = [];
  let list = 'in.xs';
  for (let i = 0; i < n; i++) {
    nodes.push(iterate(`i${i}`), template(`t${i}`, '{{x}}', 'x'), collect(`c${i}`));
    edges.push(`${list}->i${i}.list`, `i${i}.item->t${i}.x`, `t${i}.output->c${i}.item`);
    list = `c${i}.list`;
  }
  nodes.push(output('out', 'list'));
  edges.push(`${list}->out.list`);
  return graphOf(nodes, edges);
}

/** One input feeding `n` templates: every template ready at once. */
export function wideGraph(n: number): WorkflowGraph {
  const nodes = [input('in', 'q'), ...Array.from({ length: n }, (_, i) => template(`t${i}`, '{{x}}', 'x'))];
  return graphOf(nodes, Array.from({ length: n }, (_, i) => `in.q->t${i}.x`));
}
