import { z } from 'zod';
import { ModelRef } from './model';
import { ModelScript } from './script';
import { ToolEffect } from './tool-effect';
import { ServerTrust } from './server-trust';
import { isCredentialRef } from './credentials';
import { checkServerTransport, ServerHeaders, ServerOAuthClient, ServerUrl } from './remote-server';
import { containsRawSecret, RAW_SECRET_MESSAGE, TEXT_SECRET_MESSAGE } from '../policy/secrets';
import { ScsSettings } from '../scs/contracts';
import { AgentRoutes } from './routes';
import { SynthesisSettings } from './synthesis';

const slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'use lowercase letters, digits, - and _');

const timeoutMs = z.number().int().min(100).max(24 * 60 * 60 * 1000);
/** A server's deadlines: its handshake, each call, and calls to particular tools (by tool name). */
export const McpTimeouts = z
  .object({ start_ms: timeoutMs.optional(), call_ms: timeoutMs.optional(), tools: z.record(z.string().min(1), timeoutMs).optional() })
  .strict();
export type McpTimeouts = z.infer<typeof McpTimeouts>;

/** An MCP server started over stdio: an npm package's bin (run with Node) or a command. */
/** A config string that must not hold a raw secret (a `keychain:NAME` reference is fine). */
const noRawSecret = z.string().refine((v): boolean => isCredentialRef(v) || !containsRawSecret(v), { message: RAW_SECRET_MESSAGE });
/** Text every model and trace sees: no key or bearer token in it (it belongs in a server's env). */
const noSecretText = z.string().min(1).refine((v): boolean => !containsRawSecret(v), { message: TEXT_SECRET_MESSAGE });

export const McpServerSpec = z
  .object({
    id: slug,
    package: z.string().min(1).optional(),
    command: z.string().min(1).optional(),
    /** A remote server (Streamable HTTP, HTTP+SSE as fallback): reached only where the privacy policy allows. */
    url: ServerUrl.optional(),
    /** Request headers of a remote server: values are `keychain:NAME` only, resolved on the host. */
    headers: ServerHeaders.optional(),
    /** A url server's OAuth client registered beforehand (else Steward registers itself when signing in). */
    oauth: ServerOAuthClient.optional(),
    args: z
      .array(
        noRawSecret.refine((v): boolean => !isCredentialRef(v), {
          message: 'credentials go in env (KEY: keychain:NAME), not in args, which other programs can see',
        }),
      )
      .default([]),
    /** Values may be `keychain:NAME`: the host resolves them from the OS keychain at launch. */
    env: z.record(z.string(), noRawSecret).optional(),
    /** Offer only these tools to the model (all when absent). */
    tools: z.array(z.string().min(1)).optional(),
    /**
     * Host environment variables a stdio server inherits, by name, on top of the minimal set every
     * server gets (PATH, HOME, USER, LOGNAME, SHELL, TERM; Windows: its system folders and PATH).
     * Nothing else of the host's environment reaches the server.
     */
    inherit_env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name: letters, digits and _')).optional(),
    /** Deadlines of this server's requests (milliseconds); a call's deadline restarts whenever the server reports progress. */
    timeouts: McpTimeouts.optional(),
    /**
     * Whether what this server returns may be believed (contracts/server-trust.ts): absent means
     * untrusted, so values copied from its results into a tool call are reviewed (rule untrusted_provenance).
     */
    trust: ServerTrust.optional(),
    /** Offer the server's resources to the agent through one read tool, `read_resource_<id>` (a read). */
    offer_resources: z.boolean().optional(),
    /**
     * Let this server ask the run's student model (MCP sampling); off unless set. Recorded as model
     * calls. `true`: answered without asking (as before); `"ask"`: a person allows or denies each
     * request first (in the app's page, or at a terminal); with nobody to ask it is denied.
     */
    sampling: z.union([z.boolean(), z.literal('ask')]).optional(),
  })
  .strict()
  .superRefine(checkServerTransport);
export type McpServerSpec = z.infer<typeof McpServerSpec>;

/**
 * Lifecycle phases (DESIGN.md §3, docs/supervision.md): who proposes, who reviews.
 * 0 Teacher only · 1 Shadow · 2 Student fully gated · 3 Risk-gated · 4 Autonomous.
 */
export const LIFECYCLE_PHASES = [0, 1, 2, 3, 4] as const;
// The message names the allowed range: a spec's author sees it, not zod's "Invalid input".
export const LifecyclePhase = z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3), z.literal(4)], {
  error: 'a phase is 0–4 (0 teacher only, 1 shadow, 2 student fully gated, 3 risk-gated, 4 autonomous)',
});
export type LifecyclePhase = z.infer<typeof LifecyclePhase>;

export const PHASE_LABELS = {
  0: 'Teacher only',
  1: 'Shadow',
  2: 'Student fully gated',
  3: 'Risk-gated',
  4: 'Autonomous',
} satisfies Record<LifecyclePhase, string>;

/**
 * The review rules of the supervision profile. Protected effects are always reviewed (I4) and are
 * not a switch; the others add review in phase 3 (sampling and untrusted provenance also in phase 4).
 */
export const ReviewRules = z
  .object({
    /** Send a candidate that still fails validation after the student's repairs to the teacher. */
    validation_failed: z.boolean().default(true),
    /** Review this share of otherwise unreviewed decisions (0–1), drawn by a seeded sampler. */
    sample_rate: z.number().min(0).max(1).default(0),
    /** Seed of the sampler: the same seed, run and round always draw the same. */
    sample_seed: z.number().int().nonnegative().default(0),
    /** Review `complete` decisions (the finish). */
    complete: z.boolean().default(false),
    /** Always review calls to these tools. */
    tools: z.array(z.string().min(1)).default([]),
    /** Review decisions whose self-reported confidence is below this (a missing confidence counts as low). */
    min_confidence: z.number().min(0).max(1).optional(),
    /**
     * Review a tool call when an argument carries a value copied from an untrusted server's result
     * (issue 31), in phases 3 and 4 too. On unless set to false (absent: on, so older profiles keep
     * their versions and still get it).
     */
    untrusted_provenance: z.boolean().optional(),
  })
  .strict();
export type ReviewRules = z.infer<typeof ReviewRules>;

export const BLOCK_BEHAVIOURS = ['fail', 'safe_message', 'ask_user'] as const;
export const BlockBehaviour = z.enum(BLOCK_BEHAVIOURS);
export type BlockBehaviour = z.infer<typeof BlockBehaviour>;

export const ESCALATION_BEHAVIOURS = ['teacher_takeover', 'human', 'fail'] as const;
export const EscalationBehaviour = z.enum(ESCALATION_BEHAVIOURS);
export type EscalationBehaviour = z.infer<typeof EscalationBehaviour>;

/** What a blocked decision leads to, as a person picks it. */
export const BLOCK_BEHAVIOUR_LABELS = {
  fail: 'Fail the run',
  safe_message: 'Deliver the safe message and stop',
  ask_user: 'Stop and ask you for input',
} satisfies Record<BlockBehaviour, string>;

/** What an escalation leads to, as a person picks it. */
export const ESCALATION_BEHAVIOUR_LABELS = {
  teacher_takeover: 'The teacher takes over for a few rounds',
  human: 'Wait for you to decide in the app',
  fail: 'End the run as escalated',
} satisfies Record<EscalationBehaviour, string>;

export const SupervisionSpec = z
  .object({
    enabled: z.boolean().default(true),
    phase: LifecyclePhase.default(3),
    rules: ReviewRules.default(ReviewRules.parse({})),
    /** Times the student may repair a decision that failed validation, within the round, before review. */
    max_repair_rounds: z.number().int().min(0).max(3).default(1),
    /** How many times a malformed or unusable verdict is re-asked before the safe failure. */
    max_verdict_attempts: z.number().int().min(1).max(5).default(2),
    on_block: BlockBehaviour.default('fail'),
    safe_message: z.string().min(1).default('I could not complete this safely. Nothing was changed.'),
    /**
     * What an `escalate` verdict does: the teacher decides the next rounds; a person decides in the
     * app (the run waits, persisted, and resumes on their answer); or the run ends escalated.
     */
    on_escalate: EscalationBehaviour.default('teacher_takeover'),
    /** Rounds the teacher decides after an escalation (teacher takeover). */
    takeover_rounds: z.number().int().min(1).max(10).default(3),
  })
  .strict();
export type SupervisionSpec = z.infer<typeof SupervisionSpec>;

/** The Runtime group's bounds, in words where a person reads a refusal (the panel, `steward validate`). */
export const RUNTIME_BOUNDS = {
  max_rounds: { min: 1, max: 200 },
  /** Seconds × 1000: a decision needs at least a second, and no round waits longer than ten minutes. */
  decision_timeout_ms: { min: 1000, max: 600_000 },
  /** Output tokens: room for one decision with its arguments, and no more than any server we speak to offers. */
  max_output_tokens: { min: 256, max: 32_768 },
} as const;

const boundedInt = (bounds: { min: number; max: number }, words: string) =>
  z.number({ error: words }).int({ error: words }).min(bounds.min, { error: words }).max(bounds.max, { error: words });

export const LimitsSpec = z
  .object({
    max_rounds: boundedInt(RUNTIME_BOUNDS.max_rounds, 'the round limit is a whole number of rounds from 1 to 200').default(12),
    /** Consecutive failed rounds (invalid output, tool errors) before the run fails. */
    max_consecutive_failures: z.number().int().min(1).max(20).default(3),
    /**
     * The longest one decision may take (milliseconds): the proposing model's answer (with its
     * retries and repairs) and, separately, each review. A model still thinking then is stopped and
     * the round fails in words ("gave no decision within 30 s"). Absent: only each model's own call
     * timeout applies.
     */
    decision_timeout_ms: boundedInt(RUNTIME_BOUNDS.decision_timeout_ms, 'the decision timeout is from 1 to 600 seconds, in whole milliseconds').optional(),
    /**
     * The model reply bound: output tokens one reply of this agent's models may use (a proposal, a
     * shadow, a review), sent with every call so the server stops there. Absent: Steward's own
     * bounds (contracts/output-bound.ts: 8,192 for a proposal, 4,096 for a review).
     */
    max_output_tokens: boundedInt(RUNTIME_BOUNDS.max_output_tokens, 'the model reply bound is from 256 to 32,768 output tokens').optional(),
  })
  .strict();
export type LimitsSpec = z.infer<typeof LimitsSpec>;

/** `server/tool` → effect metadata, overriding the shipped registry for this spec. */
export const ToolEffectOverrides = z.record(z.string().regex(/^[^/]+\/[^/]+$/, 'key as server/tool'), ToolEffect);

export const AgentSpec = z
  .object({
    format: z.literal('steward/v1'),
    kind: z.literal('agent'),
    id: slug,
    name: z.string().min(1).max(120),
    description: z.string().default(''),
    instructions: noSecretText,
    task: noSecretText,
    /** Folder the agent works in, relative to the spec file; `${workspace}` in server args. */
    workspace: z.string().min(1).optional(),
    servers: z.array(McpServerSpec).default([]),
    models: z
      .object({ student: ModelRef.default({ provider: 'script' }), teacher: ModelRef.default({ provider: 'script' }) })
      .strict()
      .default({ student: { provider: 'script' }, teacher: { provider: 'script' } }),
    supervision: SupervisionSpec.default(SupervisionSpec.parse({})),
    limits: LimitsSpec.default(LimitsSpec.parse({})),
    /** Student · Committee · Supervisor task gates (seed 001); off unless asked for. */
    scs: ScsSettings.default(ScsSettings.parse({})),
    /** The routes a `reroute` may name (routes.ts); absent: reroute ends the run as a refusal. */
    routes: AgentRoutes.optional(),
    /** Speech for delivered responses (the Synthesis group, contracts/synthesis.ts); absent: off. */
    synthesis: SynthesisSettings.optional(),
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

/** A workflow document: today one kind (a single agent node); graphs come later. */
export const WorkflowDocument = z.discriminatedUnion('kind', [AgentSpec]);
export type WorkflowDocument = z.infer<typeof WorkflowDocument>;
