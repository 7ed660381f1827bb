import { AgentSpec } from '../contracts/spec';
import type { HostedWorkflow } from '../contracts/hosted-workflow';
import type { EffectOverride, RegisteredServer, Workspace } from '../contracts/host-registry';
import type { ToolEffect } from '../contracts/tool-effect';

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
export function expandHostedWorkflow(doc: HostedWorkflow, registry: RegistryView): ExpandResult {
  const tool_effects: Record<string, ToolEffect> = {};
  const servers = [];
  for (const ref of doc.servers) {
    const server = registry.servers.find((s) => s.id === ref.server);
    if (!server) return { ok: false, kind: 'unregistered', message: `the workflow uses server "${ref.server}", which is not registered on this host` };
    for (const o of registry.overrides) if (o.server === server.id) tool_effects[`${ref.id}/${o.tool}`] = o.effect;
    servers.push({
      id: ref.id,
      ...(server.package !== undefined ? { package: server.package } : { command: server.command }),
      args: server.args,
      ...(Object.keys(server.env).length ? { env: server.env } : {}),
      ...(ref.tools ? { tools: ref.tools } : {}),
    });
  }
  let workspace: string | undefined;
  if (doc.workspace !== undefined) {
    const ws = registry.workspaces.find((w) => w.id === doc.workspace);
    if (!ws) return { ok: false, kind: 'unregistered', message: `the workflow uses workspace "${doc.workspace}", which is not registered on this host` };
    workspace = ws.path;
  }
  const { servers: _refs, workspace: _id, ...rest } = doc;
  const parsed = AgentSpec.safeParse({ ...rest, servers, ...(workspace !== undefined ? { workspace } : {}), tool_effects });
  if (!parsed.success) return { ok: false, kind: 'invalid', message: parsed.error.issues.map((i) => `${i.path.join('.') || 'spec'}: ${i.message}`).join('; ') };
  return { ok: true, spec: parsed.data };
}
