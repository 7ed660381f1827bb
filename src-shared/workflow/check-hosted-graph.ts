import type { RegistryView } from '../policy/expand-workflow';
import type { WorkflowGraph } from './document';
import type { HostedWorkflowGraph } from './hosted-graph';
import type { WorkflowInterface } from './subworkflow';
import { validateGraph, type GraphProblem } from './validate-graph';

/**
 * Every problem of a stored workflow on this host, named by node and port: the graph's own
 * (validate-graph.ts) and the registry's — a server or workspace that is not registered is shown on
 * the nodes that use it. The editor shows these on its nodes; the host and CLI refuse to run a
 * workflow that has any.
 */
export function checkHostedGraph(
  doc: HostedWorkflowGraph,
  registry: Pick<RegistryView, 'servers' | 'workspaces'>,
  /** Tool names by registered server id, for the servers that were inspected. */
  toolsByServer: Record<string, readonly string[]> = {},
  /** The stored workflows on this host (workflow nodes and workflow tools are checked against them). */
  workflows?: ReadonlyMap<string, WorkflowInterface>,
): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const tools: Record<string, string[]> = {};
  const usersOf = (refId: string) => doc.nodes.filter((n) => (n.kind === 'tool' && n.server === refId) || (n.kind === 'agent' && (n.servers ?? doc.servers.map((s) => s.id)).includes(refId)));
  for (const ref of doc.servers) {
    const server = registry.servers.find((s) => s.id === ref.server);
    if (!server) {
      const users = usersOf(ref.id);
      const message = `uses server "${ref.server}", which is not registered on this host (add it in the MCP registry)`;
      if (users.length === 0) problems.push({ code: 'unregistered_server', message: `the workflow lists server "${ref.server}", which is not registered on this host` });
      for (const node of users) problems.push({ node: node.id, code: 'unregistered_server', message });
      continue;
    }
    // Such a server cannot start without a folder to work in (the shipped filesystem server).
    if (doc.workspace === undefined && server.args.some((a) => a.includes('${workspace}'))) {
      for (const node of usersOf(ref.id)) problems.push({ node: node.id, code: 'workspace_required', message: `uses server "${ref.server}", which works in the workflow's workspace; choose a workspace for the workflow` });
    }
    // The reference's tools list alone bounds what the workflow is offered, inspected or not.
    const known = toolsByServer[ref.server];
    if (known) tools[ref.id] = ref.tools ? known.filter((t) => ref.tools?.includes(t)) : [...known];
    else if (ref.tools) tools[ref.id] = [...ref.tools];
  }
  if (doc.workspace !== undefined && !registry.workspaces.some((w) => w.id === doc.workspace)) {
    problems.push({ code: 'unregistered_workspace', message: `uses workspace "${doc.workspace}", which is not registered on this host` });
  }
  // Graph validation needs only the workflow's server names, not their launches.
  const { servers, workspace: _workspace, ...rest } = doc;
  const shape: WorkflowGraph = { ...rest, servers: servers.map((s) => ({ id: s.id, command: s.server, args: [] })), tool_effects: {} };
  return [...problems, ...validateGraph(shape, { tools, ...(workflows ? { workflows } : {}) })];
}
