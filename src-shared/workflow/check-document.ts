import type { RegistryView } from '../policy/expand-workflow';
import { checkHostedGraph } from './check-hosted-graph';
import { documentProblems, type KnownTool } from './document-checks';
import { HostedWorkflowGraph } from './hosted-graph';
import { schemaProblems } from './schema-problems';
import type { GraphProblem } from './validate-graph';
import type { WorkflowInterface } from './subworkflow';

export interface DocumentCheck {
  problems: GraphProblem[];
  /** The schema holds: the document can be saved (it may still have problems that stop a run). */
  saveable: boolean;
}

/**
 * Every problem of an app workflow document (the editor's draft, a stored or exported file) on
 * this host: what its schema refuses, in words; else its graph's and registry's
 * (checkHostedGraph) and its tool arguments' and scripts' (document-checks.ts). `tools`: the
 * registered servers' tools, by registered server id, for the servers whose tools are known.
 */
export function checkHostedDocument(value: unknown, registry: Pick<RegistryView, 'servers' | 'workspaces'>, tools: Readonly<Record<string, readonly KnownTool[]>> = {}, workflows?: ReadonlyMap<string, WorkflowInterface>): DocumentCheck {
  const parsed = HostedWorkflowGraph.safeParse(value);
  if (!parsed.success) return { problems: schemaProblems(value, parsed.error), saveable: false };
  const doc = parsed.data;
  const names = Object.fromEntries(Object.entries(tools).map(([server, list]) => [server, list.map((t) => t.name)]));
  const byRef: Record<string, KnownTool[]> = {};
  const workspaceServers = new Set<string>();
  for (const ref of doc.servers) {
    const known = tools[ref.server];
    if (known) byRef[ref.id] = known.filter((t) => ref.tools === undefined || ref.tools.includes(t.name));
    const server = registry.servers.find((s) => s.id === ref.server);
    if (server?.args.some((a) => a.includes('${workspace}'))) workspaceServers.add(ref.id);
  }
  const workspace = doc.workspace === undefined ? undefined : registry.workspaces.find((w) => w.id === doc.workspace)?.path;
  const problems = [...checkHostedGraph(doc, registry, names, workflows), ...documentProblems(doc.nodes, { tools: byRef, workspaceServers, variables: ['specDir', ...(doc.workspace !== undefined ? ['workspace'] : [])], ...(workspace !== undefined ? { workspace } : {}) })];
  return { problems, saveable: true };
}
