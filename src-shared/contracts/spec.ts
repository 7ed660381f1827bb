import { z } from 'zod';
import { ModelRef } from './model';
import { ModelScript } from './script';
import { ToolEffect } from './tool-effect';

const slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'use lowercase letters, digits, - and _');

/** An MCP server started over stdio: an npm package's bin (run with Node) or a command. */
export const McpServerSpec = z
  .object({
    id: slug,
    package: z.string().min(1).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).optional(),
    /** Offer only these tools to the model (all when absent). */
    tools: z.array(z.string().min(1)).optional(),
  })
  .strict()
  .refine((s) => (s.package === undefined) !== (s.command === undefined), {
    message: 'a server needs exactly one of package or command',
  });
export type McpServerSpec = z.infer<typeof McpServerSpec>;

export const REVIEW_POLICIES = ['protected_effects', 'all', 'none'] as const;
export const ReviewPolicyName = z.enum(REVIEW_POLICIES);
export type ReviewPolicyName = z.infer<typeof ReviewPolicyName>;

export const BLOCK_BEHAVIOURS = ['fail', 'safe_message', 'ask_user'] as const;
export const BlockBehaviour = z.enum(BLOCK_BEHAVIOURS);
export type BlockBehaviour = z.infer<typeof BlockBehaviour>;

export const SupervisionSpec = z
  .object({
    enabled: z.boolean().default(true),
    review: ReviewPolicyName.default('protected_effects'),
    /** Send an invalid student candidate to the teacher (who may replace it) instead of failing the round. */
    review_invalid: z.boolean().default(true),
    /** How many times a malformed or unusable verdict is re-asked before the safe failure. */
    max_verdict_attempts: z.number().int().min(1).max(5).default(2),
    on_block: BlockBehaviour.default('fail'),
    safe_message: z.string().min(1).default('I could not complete this safely. Nothing was changed.'),
  })
  .strict();
export type SupervisionSpec = z.infer<typeof SupervisionSpec>;

export const LimitsSpec = z
  .object({
    max_rounds: z.number().int().min(1).max(200).default(12),
    /** Consecutive failed rounds (invalid output, tool errors) before the run fails. */
    max_consecutive_failures: z.number().int().min(1).max(20).default(3),
  })
  .strict();

/** `server/tool` → effect metadata, overriding the shipped registry for this spec. */
export const ToolEffectOverrides = z.record(z.string().regex(/^[^/]+\/[^/]+$/, 'key as server/tool'), ToolEffect);

export const AgentSpec = z
  .object({
    format: z.literal('steward/v1'),
    kind: z.literal('agent'),
    id: slug,
    name: z.string().min(1).max(120),
    description: z.string().default(''),
    instructions: z.string().min(1),
    task: z.string().min(1),
    /** Folder the agent works in, relative to the spec file; `${workspace}` in server args. */
    workspace: z.string().min(1).optional(),
    servers: z.array(McpServerSpec).default([]),
    models: z
      .object({ student: ModelRef.default({ provider: 'script' }), teacher: ModelRef.default({ provider: 'script' }) })
      .strict()
      .default({ student: { provider: 'script' }, teacher: { provider: 'script' } }),
    supervision: SupervisionSpec.default(SupervisionSpec.parse({})),
    limits: LimitsSpec.default(LimitsSpec.parse({})),
    tool_effects: ToolEffectOverrides.default({}),
    /** Scripted responses for the `script` provider, inline... */
    script: ModelScript.optional(),
    /** ...or in a side file next to the spec. */
    script_file: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    const ids = new Set<string>();
    s.servers.forEach((srv, i) => {
      if (ids.has(srv.id)) ctx.addIssue({ code: 'custom', path: ['servers', i, 'id'], message: `duplicate server id ${srv.id}` });
      ids.add(srv.id);
    });
    for (const key of Object.keys(s.tool_effects)) {
      const server = key.split('/')[0];
      if (!ids.has(server ?? '')) ctx.addIssue({ code: 'custom', path: ['tool_effects', key], message: `no server ${server}` });
    }
    if (s.script && s.script_file) {
      ctx.addIssue({ code: 'custom', path: ['script_file'], message: 'use script or script_file, not both' });
    }
  });
export type AgentSpec = z.infer<typeof AgentSpec>;
export type AgentSpecInput = z.input<typeof AgentSpec>;

/** A workflow document. Today one kind (a single agent node); graphs come later. */
export const WorkflowDocument = z.discriminatedUnion('kind', [AgentSpec]);
export type WorkflowDocument = z.infer<typeof WorkflowDocument>;
