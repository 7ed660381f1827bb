import { AgentSpec, type McpServerSpec } from '../contracts/spec';
import type { HostedServerRef, HostedWorkflow } from '../contracts/hosted-workflow';
import type { EffectOverride, RegisteredServer, Workspace } from '../contracts/host-registry';
import type { ToolEffect } from '../contracts/tool-effect';
import { WorkflowGraph } from '../workflow/document';
import type { HostedWorkflowGraph } from '../workflow/hosted-graph';

export interface RegistryView {
  servers: readonly RegisteredServer[];
  workspaces: readonly Workspace[];
  overrides: readonly EffectOverride[];
}

export type ExpandResult =
  | { ok: true; spec: AgentSpec }
  | { ok: false; kind: 'unregistered'; message: string }
  | { ok: false; kind: 'invalid'; message: string };

/**
 * The page's workflow as a runnable spec, from the host's registry: each server reference becomes
 * the registered launch (package or command, args, env), the workspace id its folder, the user's
 * effect overrides the spec's `tool_effects`. The host runs exactly this; the page validates it.
 */
type Expanded<T> = { ok: true; value: T } | { ok: false; kind: 'unregistered'; message: string };

/**
 * Each server reference as the registered launch (package or command, args, env), and the user's
 * effect overrides for those servers keyed `<ref id>/<tool>`.
 */
function expandServers(refs: readonly HostedServerRef[], registry: RegistryView): Expanded<{ servers: McpServerSpec[]; tool_effects: Record<string, ToolEffect> }> {
  const tool_effects: Record<string, ToolEffect> = {};
  const servers: McpServerSpec[] = [];
  for (const ref of refs) {
    const server = registry.servers.find((s) => s.id === ref.server);
    if (!server) return { ok: false, kind: 'unregistered', message: `the workflow uses server "${ref.server}", which is not registered on this host` };
    for (const o of registry.overrides) if (o.server === server.id) tool_effects[`${ref.id}/${o.tool}`] = o.effect;
    servers.push({
      id: ref.id,
      ...serverTransport(server),
      args: server.args,
      ...(Object.keys(server.env).length ? { env: server.env } : {}),
      ...(ref.tools ? { tools: ref.tools } : {}),
      ...(ref.sampling ? { sampling: ref.sampling } : {}),
      ...(server.trust ? { trust: server.trust } : {}),
    });
  }
  return { ok: true, value: { servers, tool_effects } };
}

/** How a registered server is reached, as a spec entry writes it: package, command, or url with its headers and OAuth client. */
export function serverTransport(server: Pick<RegisteredServer, 'package' | 'command' | 'url' | 'headers' | 'oauth'>): Pick<McpServerSpec, 'package' | 'command' | 'url' | 'headers' | 'oauth'> {
  if (server.url !== undefined) return { url: server.url, ...(server.headers && Object.keys(server.headers).length ? { headers: server.headers } : {}), ...(server.oauth ? { oauth: server.oauth } : {}) };
  return server.package !== undefined ? { package: server.package } : { command: server.command };
}

function expandWorkspace(id: string | undefined, registry: RegistryView): Expanded<string | undefined> {
  if (id === undefined) return { ok: true, value: undefined };
  const ws = registry.workspaces.find((w) => w.id === id);
  if (!ws) return { ok: false, kind: 'unregistered', message: `the workflow uses workspace "${id}", which is not registered on this host` };
  return { ok: true, value: ws.path };
}

/**
 * The page's workflow as a runnable spec, from the host's registry: each server reference becomes
 * the registered launch (package or command, args, env), the workspace id its folder, the user's
 * effect overrides the spec's `tool_effects`. The host runs exactly this; the page validates it.
 */
export function expandHostedWorkflow(doc: HostedWorkflow, registry: RegistryView): ExpandResult {
  const servers = expandServers(doc.servers, registry);
  if (!servers.ok) return servers;
  const workspace = expandWorkspace(doc.workspace, registry);
  if (!workspace.ok) return workspace;
  const { servers: _refs, workspace: _id, ...rest } = doc;
  const parsed = AgentSpec.safeParse({ ...rest, ...servers.value, ...(workspace.value !== undefined ? { workspace: workspace.value } : {}) });
  if (!parsed.success) return { ok: false, kind: 'invalid', message: parsed.error.issues.map((i) => `${i.path.join('.') || 'spec'}: ${i.message}`).join('; ') };
  return { ok: true, spec: parsed.data };
}

export type ExpandGraphResult =
  | { ok: true; graph: WorkflowGraph; workspace?: string }
  | { ok: false; kind: 'unregistered'; message: string }
  | { ok: false; kind: 'invalid'; message: string };

/**
 * A stored workflow graph as a runnable one, the same way: registered servers become their
 * launches, the workspace id its absolute folder (returned beside the graph, which keeps no path).
 */
export function expandHostedGraph(doc: HostedWorkflowGraph, registry: RegistryView): ExpandGraphResult {
  const servers = expandServers(doc.servers, registry);
  if (!servers.ok) return servers;
  const workspace = expandWorkspace(doc.workspace, registry);
  if (!workspace.ok) return workspace;
  const { servers: _refs, workspace: _id, ...rest } = doc;
  const parsed = WorkflowGraph.safeParse({ ...rest, ...servers.value });
  if (!parsed.success) return { ok: false, kind: 'invalid', message: parsed.error.issues.map((i) => `${i.path.join('.') || 'workflow'}: ${i.message}`).join('; ') };
  return { ok: true, graph: parsed.data, ...(workspace.value !== undefined ? { workspace: workspace.value } : {}) };
}
