import type { GraphIndex } from '../workflow/graph-index';

/**
 * What a `skip` verdict does downstream (seed 004 design §5.2), read off the graph: the skipped
 * invocation sends nothing, and within its lineage
 * - a node with a required input from something that sends nothing is pruned (skipped), even a join
 *   whose other inputs already arrived: it must not wait for a value that will never come;
 * - a node that only loses optional inputs still runs, without them;
 * - an iterate that loses its list is pruned, and with it everything inside its scope and its
 *   collects: none of its items will ever open;
 * - a collect whose item went missing still closes, with the items that did arrive (the scope the
 *   skipped item was part of must close, or the run would hang).
 * Matches the scheduler's handling of a value that never arrives (scheduler.ts), which the property
 * test in skip-pruning.fuzz.test.ts checks over generated graphs.
 */
export interface SkipEffect {
  /** Nodes skipped (or never opened) in the skipped invocation's lineage, in run order. */
  pruned: string[];
  /** Nodes that still run there, without the optional inputs the skip took away. */
  runs_without: Array<{ node: string; ports: string[] }>;
  /** Collects that close with the skipped item (or items) left out. */
  closes_without: string[];
}

export function skipEffect(index: GraphIndex, skipped: string): SkipEffect {
  const silent = new Set<string>([skipped]);
  const prunedIterates = new Set<string>();
  const pruned: string[] = [];
  const runsWithout: SkipEffect['runs_without'] = [];
  const closesWithout: string[] = [];
  const at = index.order.indexOf(skipped);
  if (at < 0) return { pruned, runs_without: runsWithout, closes_without: closesWithout };

  const prune = (id: string) => {
    silent.add(id);
    pruned.push(id);
    if (index.nodes.get(id)?.kind === 'iterate') prunedIterates.add(id);
  };

  for (const id of index.order.slice(at + 1)) {
    const node = index.nodes.get(id);
    if (!node) continue;
    const scope = index.scope.get(id) ?? [];
    if (node.kind === 'collect') {
      const closes = index.closes.get(id);
      if (scope.some((s) => prunedIterates.has(s)) || (closes !== undefined && prunedIterates.has(closes))) prune(id);
      else if ([...(index.incoming.get(id)?.values() ?? [])].flat().some((e) => silent.has(e.from.node))) closesWithout.push(id);
      continue;
    }
    if (scope.some((s) => prunedIterates.has(s))) {
      prune(id);
      continue;
    }
    const required = new Set((index.ports.get(id)?.inputs ?? []).filter((p) => p.required !== false).map((p) => p.name));
    const lost = [...(index.incoming.get(id) ?? [])].filter(([, edges]) => edges.some((e) => silent.has(e.from.node))).map(([port]) => port);
    if (lost.length === 0) continue;
    if (node.kind === 'iterate' || lost.some((p) => required.has(p))) prune(id);
    else runsWithout.push({ node: id, ports: lost });
  }
  return { pruned, runs_without: runsWithout, closes_without: closesWithout };
}
