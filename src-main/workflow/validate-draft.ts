import type { InspectedTool } from '@shared/contracts/host-api';
import type { RegisteredServer } from '@shared/contracts/host-registry';
import { checkHostedDocument, type DocumentCheck } from '@shared/workflow/check-document';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import type { GraphProblem } from '@shared/workflow/validate-graph';
import type { WorkflowInterface } from '@shared/workflow/subworkflow';
import type { HostRegistry } from '../registry/host-registry';

/** Lists a registered server's tools (the host's mcp.inspect). */
export type ListTools = (server: RegisteredServer, workspace: string | undefined) => Promise<{ tools: InspectedTool[] }>;

const FAILURE_TTL_MS = 15_000;

/**
 * The tools of registered servers as the host last listed them, by server entry and workspace: an
 * inspection fills it, and workflows.validate lists a server it does not know yet once (a failure
 * is kept a few seconds, so a draft checked on every edit does not start a broken server each time).
 */
export class ToolListCache {
  private readonly entries = new Map<string, { at: number; tools: Promise<InspectedTool[]> }>();

  constructor(private readonly list: ListTools) {}

  private key(server: RegisteredServer, workspace: string | undefined): string {
    return JSON.stringify([server, workspace ?? null]);
  }

  /** What an inspection just reported (mcp.inspect). */
  remember(server: RegisteredServer, workspace: string | undefined, tools: InspectedTool[]): void {
    this.entries.set(this.key(server, workspace), { at: Date.now(), tools: Promise.resolve(tools) });
  }

  tools(server: RegisteredServer, workspace: string | undefined): Promise<InspectedTool[]> {
    const key = this.key(server, workspace);
    const known = this.entries.get(key);
    if (known) return known.tools;
    const tools = this.list(server, workspace).then((r) => r.tools);
    const entry = { at: Date.now(), tools };
    this.entries.set(key, entry);
    tools.catch(() => setTimeout(() => this.entries.get(key) === entry && this.entries.delete(key), FAILURE_TTL_MS).unref());
    return tools;
  }
}

/**
 * workflows.validate: the host's check of a workflow document as it would be saved — its schema in
 * words, its graph and registry references, its tools' arguments against the schemas its servers
 * list, its scripts' decisions (check-document.ts, the checks `steward validate` makes). A server
 * whose tools cannot be listed is a problem on the nodes that use it, as validate refuses it.
 */
export async function validateDraft(value: unknown, registry: HostRegistry, cache: ToolListCache, workflows?: ReadonlyMap<string, WorkflowInterface>): Promise<DocumentCheck> {
  const view = { servers: registry.servers(), workspaces: registry.workspaces() };
  const parsed = HostedWorkflowGraph.safeParse(value);
  if (!parsed.success) return checkHostedDocument(value, view);
  const doc = parsed.data;
  const workspace = doc.workspace === undefined ? undefined : view.workspaces.find((w) => w.id === doc.workspace)?.path;
  const tools: Record<string, InspectedTool[]> = {};
  const unavailable: GraphProblem[] = [];
  // Each registered server once, however many references name it.
  const servers = [...new Set(doc.servers.map((r) => r.server))].flatMap((id) => view.servers.filter((s) => s.id === id));
  // A server that works in the workspace cannot start before one is chosen (checkHostedGraph says so).
  const startable = servers.filter((s) => workspace !== undefined || !s.args.some((a) => a.includes('${workspace}')));
  await Promise.all(
    startable.map(async (server) => {
      try {
        tools[server.id] = await cache.tools(server, workspace);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        for (const ref of doc.servers.filter((r) => r.server === server.id)) {
          const users = doc.nodes.filter((n) => (n.kind === 'tool' && n.server === ref.id) || ((n.kind === 'agent' || n.kind === 'pattern') && (n.servers ?? doc.servers.map((s) => s.id)).includes(ref.id)));
          const message = `uses server "${server.id}", whose tools could not be listed: ${why.slice(0, 300)}`;
          if (users.length === 0) unavailable.push({ code: 'server_unavailable', message });
          for (const node of users) unavailable.push({ node: node.id, code: 'server_unavailable', message });
        }
      }
    }),
  );
  const checked = checkHostedDocument(doc, view, tools, workflows);
  return { ...checked, problems: [...unavailable, ...checked.problems] };
}
