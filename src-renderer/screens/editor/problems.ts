import type { z } from 'zod';
import type { RegisteredServer, Workspace } from '@shared/contracts/host-registry';
import { checkHostedGraph } from '@shared/workflow/check-hosted-graph';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import type { GraphProblem } from '@shared/workflow/validate-graph';
import type { Draft } from './graph-edit';

/**
 * Every problem of the draft, as the editor shows them: first what the schema refuses (a field
 * left empty, a bad port name), named by node and port, then — once the schema holds — the
 * graph's and the registry's (checkHostedGraph). `valid`: the draft can be saved.
 */
export function draftProblems(
  draft: Draft,
  registry: { servers: readonly RegisteredServer[]; workspaces: readonly Workspace[] },
  toolsByServer: Record<string, readonly string[]>,
): { problems: GraphProblem[]; valid: boolean } {
  const parsed = HostedWorkflowGraph.safeParse(draft);
  if (!parsed.success) return { problems: parsed.error.issues.map((i) => schemaProblem(draft, i)), valid: false };
  return { problems: checkHostedGraph(parsed.data, { servers: [...registry.servers], workspaces: [...registry.workspaces] }, toolsByServer), valid: true };
}

function schemaProblem(draft: Draft, issue: z.core.$ZodIssue): GraphProblem {
  const path = issue.path.map(String);
  if (path[0] === 'nodes' && path[1] !== undefined) {
    const node = draft.nodes[Number(path[1])];
    const rest = path.slice(2);
    const listed = rest[0] === 'inputs' || rest[0] === 'fields';
    const port = listed && rest[1] !== undefined && node && 'inputs' in node ? node.inputs[Number(rest[1])]?.name : listed && node && 'fields' in node ? node.fields[Number(rest[1])]?.name : undefined;
    const where = rest.length > 0 ? `${rest.join('.')}: ` : '';
    return { ...(node ? { node: node.id } : {}), ...(port !== undefined && port !== '' ? { port } : {}), code: 'schema', message: `${where}${issue.message}` };
  }
  if (path[0] === 'edges' && path[1] !== undefined) return { edge: Number(path[1]), code: 'schema', message: `edge ${Number(path[1]) + 1}: ${issue.message}` };
  return { code: 'schema', message: `${path.length > 0 ? `${path.join('.')}: ` : ''}${issue.message}` };
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
