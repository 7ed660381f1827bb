import { z } from 'zod';
import { ModelRef } from '../contracts/model';
import { ModelScript } from '../contracts/script';
import { Lineage } from '../workflow/invocation';

/**
 * The workflow supervisor (seed 004, issue 11): a node invocation that still fails after its own
 * retries becomes an Escalation; a supervisor (a model or a person) answers with a verdict from the
 * set the kernel allows. Every record here is public (events, run report, CLI --json), so an
 * Escalation is only ever built by `buildEscalation`, with redaction already applied.
 */

export const SUPERVISOR_ACTIONS = ['retry', 'skip', 'substitute', 'end_stream', 'fail'] as const;
export const SupervisorAction = z.enum(SUPERVISOR_ACTIONS);
export type SupervisorAction = z.infer<typeof SupervisorAction>;

export const SUPERVISOR_ACTION_LABELS = {
  retry: 'Retry',
  skip: 'Skip',
  substitute: 'Substitute a value',
  end_stream: 'End the stream',
  fail: 'Fail the node',
} satisfies Record<SupervisorAction, string>;

/** Who decided a verdict: the supervisor, a remembered verdict, a bound, the timeout default, or the kernel's own refusal. */
export const DECIDED_BY = ['agent', 'sticky', 'bounds', 'default', 'kernel'] as const;
export const DecidedBy = z.enum(DECIDED_BY);
export type DecidedBy = z.infer<typeof DecidedBy>;

/** Who decided a verdict, in words (the app's feed, badges and report; the CLI's ⛨ lines). */
export const DECIDED_BY_LABELS = {
  agent: 'the supervisor',
  sticky: 'a remembered verdict (the same failure was decided before)',
  bounds: 'a bound (decisions, retries or cost cap used up)',
  default: 'the default (no decision in time)',
  kernel: 'Steward (the answer was not a usable, allowed verdict)',
} satisfies Record<DecidedBy, string>;

/**
 * What kind of failure it was, from structured fields only (never message text, which carries
 * item data): the key of sticky verdicts. All absent = no signature = never sticky.
 */
export const FailureSignature = z
  .object({
    code: z.string().min(1).max(64).optional(),
    http_status: z.number().int().min(100).max(599).optional(),
    errno: z.string().min(1).max(64).optional(),
  })
  .strict();
export type FailureSignature = z.infer<typeof FailureSignature>;

/** A supervisor turn's cost in US dollars (0 for local models and people). */
const Usd = z.number().nonnegative().finite();

export const Escalation = z
  .object({
    id: z.string().min(1).max(200),
    node: z.string().min(1),
    /** `invocationId(node, lineage)`: retries are counted per invocation key. */
    invocation_key: z.string().min(1),
    /** The item lineage (outermost first): a supervisor's reads are scoped to it. */
    correlation_lineage: Lineage,
    /** What went wrong, redacted and truncated. */
    detail: z.string().max(4000),
    failure_signature: FailureSignature,
    /** A malformed output the node produced, redacted; a substitute may repair it. */
    candidate_output: z.unknown().optional(),
    /** The node's own attempts so far (1 = failed once). */
    attempt: z.number().int().min(1),
    /** What the failed invocation already cost (provider calls), in US dollars. */
    spent_usd: Usd,
    /**
     * Remote models the invocation called whose cost is not known (no price in the table, or a call
     * that reported no token usage): `spent_usd` leaves them out, and a retry is refused for them.
     * Absent when every call was priced (or local).
     */
    unpriced_models: z.array(z.string().max(200)).max(20).optional(),
    /** Assets, files or other effects the invocation created before failing. */
    created_assets: z.array(z.string().max(500)).max(100),
    retry_safe: z.boolean(),
    streaming: z.boolean(),
    /** Computed by the kernel (allowed-actions.ts), never by a model; always contains `fail`. */
    allowed_actions: z.array(SupervisorAction).min(1),
    created_at: z.string().datetime(),
  })
  .strict();
export type Escalation = z.infer<typeof Escalation>;

const Reason = z.string().max(1000);

/** One verdict. `substitute` carries the value the node's output becomes. */
export const Verdict = z.discriminatedUnion('action', [
  z.object({ action: z.literal('retry'), reason: Reason }).strict(),
  z.object({ action: z.literal('skip'), reason: Reason }).strict(),
  z.object({ action: z.literal('substitute'), value: z.record(z.string(), z.unknown()), reason: Reason }).strict(),
  z.object({ action: z.literal('end_stream'), reason: Reason }).strict(),
  z.object({ action: z.literal('fail'), reason: Reason }).strict(),
]);
export type Verdict = z.infer<typeof Verdict>;

/** Substitute repair rounds: a value that fails validation goes back to the supervisor this often. */
export const MAX_REPAIR_ROUNDS = 3;

/** The longest raw answer a verdict record keeps (the rest is cut, marked with …). */
export const MALFORMED_ANSWER_CHARS = 4000;

/**
 * A supervisor answer no verdict could be read from (not JSON, no step of the schema, a verdict the
 * schema refuses, an action outside the allowed set), kept as it was given after its repair rounds
 * ran out: the run report and `--json` show it beside the verdict Steward applied instead.
 */
export const MalformedAnswer = z
  .object({
    /** What was wrong with the last answer, for a person who opens the details. */
    problem: z.string().max(1000),
    /** The last answer as the supervisor gave it (masked), cut at MALFORMED_ANSWER_CHARS. */
    answer: z.string().max(MALFORMED_ANSWER_CHARS),
    /** Repair rounds the supervisor was given (each one a tool error back into its conversation). */
    repairs: z.number().int().min(0).max(MAX_REPAIR_ROUNDS),
  })
  .strict();
export type MalformedAnswer = z.infer<typeof MalformedAnswer>;

/** A verdict as applied: who decided it. */
export const SupervisorVerdict = z
  .object({
    escalation_id: z.string().min(1),
    verdict: Verdict,
    decided_by: DecidedBy,
    /** Supervisor turns taken (0 when no supervisor was asked). */
    turns: z.number().int().nonnegative(),
    /** What the supervisor's turns cost (actual when reported, else the reservation). */
    cost_usd: Usd,
    /** Steward decided because the supervisor's answer could not be used: that answer (absent otherwise, and in older traces). */
    malformed: MalformedAnswer.optional(),
  })
  .strict();
export type SupervisorVerdict = z.infer<typeof SupervisorVerdict>;

/** Per million tokens. */
export const ModelPrice = z.object({ input_per_mtok_usd: Usd, output_per_mtok_usd: Usd }).strict();
export type ModelPrice = z.infer<typeof ModelPrice>;
/** Model label (`provider:model`) → price. */
export const PricingTable = z.record(z.string(), ModelPrice);
export type PricingTable = z.infer<typeof PricingTable>;

/** A supervisor model's output bound unless its settings say otherwise (issue 27). */
export const DEFAULT_SUPERVISOR_OUTPUT_TOKENS = 2048;

export const SupervisorWho = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('model'),
      /** The model that supervises (a local one by default; the privacy policy applies to what it is sent). */
      model: ModelRef.default({ provider: 'script' }),
      /** Replay responses when `model` is the script provider (demos, tests, evals). */
      script: ModelScript.optional(),
      /** Output tokens one turn may use: sent with every call (the server stops there), and the worst case the cost cap reserves. Never unset. */
      max_output_tokens: z.number().int().min(64).max(32_768).default(DEFAULT_SUPERVISOR_OUTPUT_TOKENS),
      /** A model that does not answer in time is aborted; the verdict is the default (fail). */
      decision_timeout_ms: z.number().int().min(1000).max(600_000).default(60_000),
    })
    .strict(),
  z
    .object({
      kind: z.literal('person'),
      /** A person's escalation waits, persisted; absent = until they answer or the run is stopped. */
      decision_timeout_ms: z.number().int().min(60_000).optional(),
    })
    .strict(),
]);
export type SupervisorWho = z.infer<typeof SupervisorWho>;

export const SupervisorSettings = z
  .object({
    enabled: z.boolean().default(false),
    who: SupervisorWho.default({ kind: 'person' }),
    /** Supervisor decisions per run (sticky and bound-decided verdicts do not count). */
    max_decisions: z.number().int().min(1).max(1000).default(20),
    /** Retries per node invocation. */
    max_retries: z.number().int().min(0).max(10).default(2),
    /** Dollars the supervisor's own turns may cost per run; absent = no cap. */
    cost_cap_usd: Usd.optional(),
    pricing: PricingTable.default({}),
  })
  .strict();
export type SupervisorSettings = z.infer<typeof SupervisorSettings>;
export type SupervisorSettingsInput = z.input<typeof SupervisorSettings>;

