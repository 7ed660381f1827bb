import { AgentSpec } from '@shared/contracts/spec';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import type { ToolEffect } from '@shared/contracts/tool-effect';
import { SpecError } from '../spec/spec-errors';
import { formatZodIssues } from '../spec/load-spec';
import type { HostRegistry } from './host-registry';
import { RequestError } from './request-error';

/**
 * The page's workflow as a runnable spec, from the host's registry: each server reference becomes
 * the registered launch (package or command, args, env), the workspace id its folder, and the
 * user's effect overrides the spec's `tool_effects`. Nothing launch-related comes from the page.
 */
export function expandWorkflow(doc: HostedWorkflow, registry: HostRegistry): AgentSpec {
  const overrides = registry.effects();
  const tool_effects: Record<string, ToolEffect> = {};
  const servers = doc.servers.map((ref) => {
    const server = registry.server(ref.server);
    if (!server) throw new RequestError('not_found', `the workflow uses server "${ref.server}", which is not registered on this host`);
    for (const o of overrides) if (o.server === server.id) tool_effects[`${ref.id}/${o.tool}`] = o.effect;
    return {
      id: ref.id,
      ...(server.package !== undefined ? { package: server.package } : { command: server.command }),
      args: server.args,
      ...(Object.keys(server.env).length ? { env: server.env } : {}),
      ...(ref.tools ? { tools: ref.tools } : {}),
    };
  });
  let workspace: string | undefined;
  if (doc.workspace !== undefined) {
    const ws = registry.workspace(doc.workspace);
    if (!ws) throw new RequestError('not_found', `the workflow uses workspace "${doc.workspace}", which is not registered on this host`);
    workspace = ws.path;
  }
  const { servers: _refs, workspace: _id, ...rest } = doc;
  const parsed = AgentSpec.safeParse({ ...rest, servers, ...(workspace !== undefined ? { workspace } : {}), tool_effects });
  if (!parsed.success) throw new SpecError(`workflow ${doc.id} is not runnable: ${formatZodIssues(parsed.error)}`);
  return parsed.data;
}
