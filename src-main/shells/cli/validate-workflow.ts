import { serverLines, statusOf } from '../../mcp/mcp-tool-host';
import { effectWords } from '@shared/contracts/tool-effect';
import { LOCAL_ONLY, type PrivacyPolicy } from '@shared/policy/privacy';
import { documentProblems, type KnownTool } from '@shared/workflow/document-checks';
import { formatGraphProblem, validateGraph, type GraphProblem } from '@shared/workflow/validate-graph';
import type { CredentialStore } from '../../credentials/credential-store';
import type { SecretRegistry } from '../../credentials/secret-registry';
import type { LoadedWorkflow } from '../../workflow/load-workflow';
import { agentCardChecks } from '../../workflow/pattern/a2a-judge';
import { WorkflowTools } from '../../workflow/workflow-tools';
import type { WorkflowInterface } from '@shared/workflow/subworkflow';
import type { ValidationReport } from './validation-report';
import { provenanceRuleWarning } from '@shared/policy/provenance-warning';

/**
 * `steward validate` on a workflow file (the schema was checked when it loaded): graph problems
 * by node and port, `${...}` variables in agent nodes, replay scripts' decisions, literal paths
 * outside the workspace, and, when the graph is sound, its servers started as a run starts them,
 * so a tool node naming a tool its server lacks, or an argument its tool does not take, is found too. A
 * remote server is reached only on a host `privacy` allows (loopback always).
 */
export async function validateWorkflow(loaded: LoadedWorkflow, credentials: () => CredentialStore, secrets: SecretRegistry, privacy: PrivacyPolicy = LOCAL_ONLY, workflows?: ReadonlyMap<string, WorkflowInterface>): Promise<ValidationReport> {
  const { graph } = loaded;
  const lines = [`workflow: ${graph.name} (${graph.id}), ${graph.nodes.length} nodes, ${graph.servers.length} server(s)`];
  const vars: Record<string, string> = { specDir: loaded.specDir };
  if (loaded.workspace !== undefined) vars.workspace = loaded.workspace;
  const workspaceServers = new Set(graph.servers.filter((s) => [...(s.args ?? []), ...Object.values(s.env ?? {})].some((a) => a.includes('${workspace}'))).map((s) => s.id));
  // A `${name}` no run defines is a problem listed with the others (the editor's Problems list words it the same), not a stop.
  const checks = { workspaceServers, variables: Object.keys(vars), ...(loaded.workspace !== undefined ? { workspace: loaded.workspace } : {}) };
  // Workflow nodes and workflow tools are checked against the data folder's stored workflows (issue 29).
  const stored = workflows ? { workflows } : {};
  let problems = [...validateGraph(graph, stored), ...documentProblems(graph.nodes, checks)];
  if (problems.length === 0 && graph.servers.length > 0) {
    const tools = new WorkflowTools({ graph, vars, cwd: loaded.specDir, secrets, credentials: credentials(), privacy });
    try {
      const { snapshot, host } = await tools.get();
      lines.push(...serverLines(statusOf(host)));
      const byServer: Record<string, string[]> = Object.fromEntries(graph.servers.map((s) => [s.id, []]));
      const schemas: Record<string, KnownTool[]> = {};
      for (const tool of snapshot.tools) {
        byServer[tool.server]?.push(tool.name);
        (schemas[tool.server] ??= []).push(tool);
        lines.push(`  tool ${tool.server}/${tool.name}: ${effectWords(tool.effect.effect, tool.effect_source)}`);
      }
      // Tool nodes' arguments are checked against the schemas the servers just listed.
      problems = [...validateGraph(graph, { tools: byServer, ...stored }), ...documentProblems(graph.nodes, { ...checks, tools: schemas })];
    } finally {
      await tools.close();
    }
  }
  if (problems.length === 0) {
    // A2A judges: their agent cards, read under the policy as a run reads them (issue 29).
    const agents = await agentCardChecks(graph, privacy);
    lines.push(...agents.lines);
    problems = agents.problems;
  }
  // Valid but risky: an agent node autonomous with the untrusted-provenance rule off (issue 31).
  const warnings = graph.nodes.flatMap((node) => {
    const warning = node.kind === 'agent' ? provenanceRuleWarning(node.supervision, `The agent node ${node.label ?? node.id} (${node.id})`) : undefined;
    return warning === undefined ? [] : [warning];
  });
  return problems.length === 0 ? { lines, ...(warnings.length > 0 ? { warnings } : {}) } : { lines, error: problemsText(problems), ...(warnings.length > 0 ? { warnings } : {}) };
}

/** `the workflow has N problems:` and one line per problem, by node and port. */
export function problemsText(problems: readonly GraphProblem[]): string {
  const count = `${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}`;
  return [`the workflow has ${count}:`, ...problems.map((p) => `  ${formatGraphProblem(p)}`)].join('\n');
}
