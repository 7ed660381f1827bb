import { z } from 'zod';
import { Decision } from './decision';
import { ModelReply } from './model';
import { TeacherVerdict } from './verdict';
import { ParsedCandidate } from '../boundary/parse-candidate';
import { ValidationResult } from './validation-result';
import { ReviewDecision } from '../policy/review-policy';
import { Authorization } from '../boundary/authorization';
import { ArgumentProvenance } from '../boundary/provenance';

export const ROUND_OUTCOMES = ['executed', 'delivered', 'blocked', 'escalated', 'failed'] as const;
export const RoundOutcome = z.enum(ROUND_OUTCOMES);
export type RoundOutcome = z.infer<typeof RoundOutcome>;

export const OUTCOME_LABELS = {
  executed: 'Executed',
  delivered: 'Delivered',
  blocked: 'Blocked',
  escalated: 'Escalated',
  failed: 'Failed',
} satisfies Record<RoundOutcome, string>;

export const Proposer = z.enum(['student', 'teacher']);
export type Proposer = z.infer<typeof Proposer>;

/** One teacher call: parsed or not, and whether the boundary could use it. */
export const VerdictAttempt = z
  .object({
    attempt: z.number().int().min(1),
    reply: ModelReply.optional(),
    verdict: TeacherVerdict.optional(),
    /** Why this verdict could not be used (malformed, teacher error, invalid replacement...). */
    problem: z.string().optional(),
    replacement_validation: ValidationResult.optional(),
    usable: z.boolean(),
  })
  .strict();
export type VerdictAttempt = z.infer<typeof VerdictAttempt>;

export const ToolExecution = z
  .object({
    server: z.string(),
    tool: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    idempotency_key: z.string(),
    /** false when the call itself failed (server crashed, timed out); see `error`. */
    ok: z.boolean(),
    /** The tool ran and reported an error result (MCP `isError`). */
    is_error: z.boolean(),
    content: z.string(),
    error: z.string().optional(),
    duration_ms: z.number().nonnegative(),
  })
  .strict();
export type ToolExecution = z.infer<typeof ToolExecution>;

/** Who selected the decision that ran: the proposer itself, the teacher's replacement, or a person. */
export const Selector = z.enum(['student', 'teacher', 'human']);
export type Selector = z.infer<typeof Selector>;

export const SelectedDecision = z.object({ source: Selector, decision: Decision }).strict();
export type SelectedDecision = z.infer<typeof SelectedDecision>;

/** Everything that happened in one round, in boundary order. Rejected candidates live only here. */
export const RoundRecord = z
  .object({
    round: z.number().int().nonnegative(),
    proposer: Proposer,
    /** The candidate the review and selection saw (after any repairs). */
    candidate: z.object({ reply: ModelReply.optional(), parsed: ParsedCandidate.optional(), error: z.string().optional() }).strict(),
    /** Set when a person's answer decided this round (an approved escalation or confirmation). */
    intervention_id: z.string().optional(),
    /** Earlier candidates of this round that failed validation and were repaired by the student. */
    repairs: z.array(z.object({ reply: ModelReply, parsed: ParsedCandidate, validation: ValidationResult }).strict()).default([]),
    validation: ValidationResult.optional(),
    review: ReviewDecision.optional(),
    /** Values of the candidate tool call's arguments that came from earlier tool results (boundary/provenance.ts); absent: none. */
    provenance: z.array(ArgumentProvenance).optional(),
    verdicts: z.array(VerdictAttempt),
    /** The verdict the boundary acted on (the last usable one), when the teacher ruled. */
    verdict: TeacherVerdict.optional(),
    selected: SelectedDecision.optional(),
    authorization: Authorization.optional(),
    history_index: z.number().int().nonnegative().optional(),
    execution: ToolExecution.optional(),
    outcome: RoundOutcome,
    /** Machine-readable cause, e.g. `verdict_block`, `protected_unreviewed`, `student_error`. */
    reason: z.string().optional(),
    message: z.string().optional(),
  })
  .strict();
export type RoundRecord = z.infer<typeof RoundRecord>;
