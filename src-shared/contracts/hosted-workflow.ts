import { z } from 'zod';
import { AgentSpec } from './spec';
import { RegistryId } from './host-registry';

/**
 * The workflow document as the page sends it (issue 7). Unlike a spec file for the CLI (spec.ts),
 * it names no command, package, argument, environment, path or side file: servers and the
 * workspace are registered on the host and referenced by id, the script is inline, and tool
 * effects and the privacy policy are the host's own. The host expands it into an AgentSpec.
 */

const slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'use lowercase letters, digits, - and _');

export const HostedServerRef = z
  .object({
    /** The name this workflow knows the server by (tool effects and traces key on it). */
    id: slug,
    /** A registered server's id (servers.list). */
    server: RegistryId,
    /** Offer only these tools to the model (all when absent). */
    tools: z.array(z.string().min(1)).optional(),
    /**
     * Let the server ask the run's model (MCP sampling). In the app only with a person allowing each
     * request first ("ask"): a page cannot hand a server the model unattended.
     */
    sampling: z.literal('ask').optional(),
  })
  .strict();
export type HostedServerRef = z.infer<typeof HostedServerRef>;

const spec = AgentSpec.shape;

export const HostedWorkflow = z
  .object({
    format: spec.format,
    kind: spec.kind,
    id: spec.id,
    name: spec.name,
    description: spec.description,
    instructions: spec.instructions,
    task: spec.task,
    /** A registered workspace's id (workspaces.list), never a path; `${workspace}` in server args. */
    workspace: RegistryId.optional(),
    servers: z.array(HostedServerRef).default([]),
    models: spec.models,
    supervision: spec.supervision,
    limits: spec.limits,
    scs: spec.scs,
    routes: spec.routes,
    synthesis: spec.synthesis,
    script: spec.script,
  })
  .strict()
  .superRefine((w, ctx) => {
    const ids = new Set<string>();
    w.servers.forEach((s, i) => {
      if (ids.has(s.id)) ctx.addIssue({ code: 'custom', path: ['servers', i, 'id'], message: `duplicate server id ${s.id}` });
      ids.add(s.id);
    });
  });
export type HostedWorkflow = z.infer<typeof HostedWorkflow>;
export type HostedWorkflowInput = z.input<typeof HostedWorkflow>;
