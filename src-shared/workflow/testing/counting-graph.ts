import type { WorkflowGraph } from '../document';

/**
 * A graph whose nodes and edges (and each edge's ends) count the properties read from them: how many
 * times a pass visits the graph, a deterministic measure of its work (tests bound it instead of timing).
 */
export function countingGraph(graph: WorkflowGraph): { graph: WorkflowGraph; reads: () => number } {
  let reads = 0;
  const counted = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(t, key, receiver) {
        reads++;
        return Reflect.get(t, key, receiver) as unknown;
      },
    });
  return {
    graph: {
      ...graph,
      nodes: graph.nodes.map(counted),
      edges: graph.edges.map((e) => counted({ ...e, from: counted(e.from), to: counted(e.to) })),
    },
    reads: () => reads,
  };
}
