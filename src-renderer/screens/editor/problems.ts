import type { RegisteredServer, Workspace } from '@shared/contracts/host-registry';
import { checkHostedGraph } from '@shared/workflow/check-hosted-graph';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { schemaProblems } from '@shared/workflow/schema-problems';
import type { GraphProblem } from '@shared/workflow/validate-graph';
import type { Draft } from './graph-edit';

/**
 * Every problem of the draft, as the page finds them while the host checks it (use-host-check.ts):
 * first what the schema refuses (a field left empty, a bad port name), in words, named by node and
 * port, then — once the schema holds — the graph's and the registry's (checkHostedGraph).
 * `valid`: the draft can be saved.
 */
export function draftProblems(
  draft: Draft,
  registry: { servers: readonly RegisteredServer[]; workspaces: readonly Workspace[] },
  toolsByServer: Record<string, readonly string[]>,
): { problems: GraphProblem[]; valid: boolean } {
  const parsed = HostedWorkflowGraph.safeParse(draft);
  if (!parsed.success) return { problems: schemaProblems(draft, parsed.error), valid: false };
  return { problems: checkHostedGraph(parsed.data, { servers: [...registry.servers], workspaces: [...registry.workspaces] }, toolsByServer), valid: true };
}

export interface ProblemIndex {
  /** Problems on a node but no port of it. */
  node: Map<string, string[]>;
  /** `node\u0000port` → messages. */
  port: Map<string, string[]>;
  edge: Map<number, string[]>;
  /** Problems that name no node and no edge. */
  workflow: string[];
}

export const portKey = (node: string, port: string) => `${node}\u0000${port}`;

function push<K>(map: Map<K, string[]>, key: K, message: string) {
  map.set(key, [...(map.get(key) ?? []), message]);
}

/** Where each problem is shown: an edge problem on its edge (and its node), a port problem by its port. */
export function indexProblems(problems: readonly GraphProblem[]): ProblemIndex {
  const index: ProblemIndex = { node: new Map(), port: new Map(), edge: new Map(), workflow: [] };
  for (const p of problems) {
    if (p.edge !== undefined) push(index.edge, p.edge, p.message);
    if (p.node !== undefined && p.port !== undefined) push(index.port, portKey(p.node, p.port), p.message);
    else if (p.node !== undefined) push(index.node, p.node, p.message);
    else if (p.edge === undefined) index.workflow.push(p.message);
  }
  return index;
}
