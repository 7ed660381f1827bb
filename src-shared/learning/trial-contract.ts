import { z } from 'zod';
import { Decision } from '../contracts/decision';
import { Selector } from '../contracts/round';
import { LifecyclePhase } from '../contracts/spec';
import { EffectClass } from '../contracts/tool-effect';
import { Verdict } from '../contracts/verdict';
import { ReviewDecision } from '../policy/review-policy';

/**
 * A student trial (issue 31, "Would this student have done well here?"): the recorded, redacted
 * contexts of an agent node's last N reviewed rounds are put to a candidate student (no tool is ever
 * executed: the candidate only proposes), and each of its decisions is compared with the decision
 * finally selected and with the teacher's verdict on the original student. These are the records a
 * trial run keeps in the history (`trial.round`, `trial.finished` in contracts/events.ts).
 */

/** Which agent node a trial is about: an agent file's runs (its spec id), or one agent node of a workflow graph. */
export const TrialNode = z
  .object({
    /** `spec:<spec id>` or `workflow:<workflow id>/<node id>`: what the trial run's row is filed under. */
    key: z.string().min(1).max(400),
    label: z.string().min(1).max(300),
    spec_id: z.string().max(200).optional(),
    workflow_id: z.string().max(200).optional(),
    node_id: z.string().max(200).optional(),
  })
  .strict();
export type TrialNode = z.infer<typeof TrialNode>;

/** Where a replayed round was recorded. */
export const TrialSource = z
  .object({ run_id: z.string(), invocation_id: z.string().optional(), round: z.number().int().nonnegative(), ts: z.string() })
  .strict();
export type TrialSource = z.infer<typeof TrialSource>;

/** Whether the candidate's decision would have drawn a block: the recorded verdict where it equals the original student's. */
export const TRIAL_BLOCKS = ['recorded', 'none', 'unknown'] as const;
export const TrialBlock = z.enum(TRIAL_BLOCKS);
export type TrialBlock = z.infer<typeof TrialBlock>;

/** One replayed round, compared. */
export const TrialRound = z
  .object({
    /** 0-based position in the trial (oldest first). */
    index: z.number().int().nonnegative(),
    source: TrialSource,
    candidate: z
      .object({
        decision: Decision.optional(),
        /** Passed the round's deterministic validation (the same function the boundary uses). */
        valid: z.boolean(),
        /** Why it did not (in words), or why the call failed. */
        problem: z.string().max(2000).optional(),
        /** The effect of the tool it called, as the round offered it. */
        effect: EffectClass.optional(),
        protected: z.boolean(),
      })
      .strict(),
    /** The decision the round finally selected, and who selected it (absent: the round selected none — it was blocked or failed). */
    selected: z.object({ source: Selector, decision: Decision }).strict().optional(),
    selected_protected: z.boolean(),
    /** The original student's validated decision, and the teacher's verdict on it. */
    student: z.object({ decision: Decision.optional(), protected: z.boolean(), verdict: Verdict.optional() }).strict(),
    agrees_selected: z.boolean(),
    same_as_student: z.boolean(),
    /** A protected effect is involved (the candidate's or the selected decision's) and the candidate proposed differently. */
    protected_difference: z.boolean(),
    /** The node's review rules on the candidate's decision. */
    review: ReviewDecision,
    block: TrialBlock,
    latency_ms: z.number().nonnegative(),
    input_tokens: z.number().int().nonnegative().optional(),
    output_tokens: z.number().int().nonnegative().optional(),
  })
  .strict();
export type TrialRound = z.infer<typeof TrialRound>;

/** A share with its 95% Wilson score interval (rate null when nothing was counted). */
export const TrialShare = z
  .object({
    count: z.number().int().nonnegative(),
    of: z.number().int().nonnegative(),
    rate: z.number().min(0).max(1).nullable(),
    low: z.number().min(0).max(1),
    high: z.number().min(0).max(1),
  })
  .strict();
export type TrialShare = z.infer<typeof TrialShare>;

const Rate = z.number().min(0).max(1).nullable();
const PhaseFigures = z
  .object({
    examples: z.number().int().nonnegative(),
    reviews: z.number().int().nonnegative(),
    agreement_rate: Rate,
    block_rate: Rate,
    protected_errors: z.number().int().nonnegative(),
  })
  .strict();
const Suggestion = z.object({ action: z.enum(['promote', 'demote', 'hold']), to: LifecyclePhase.optional(), reason: z.string().min(1) }).strict();

/** One model's figures on the trial's rounds: the candidate's, or the current student's as recorded. */
export const TrialFigures = z
  .object({
    model: z.string(),
    agreement: TrialShare,
    /** Decisions that failed validation. */
    invalid: z.number().int().nonnegative(),
    /** Blocks drawn (recorded verdicts), and rounds whose verdict nobody can know without asking the teacher. */
    blocks: z.number().int().nonnegative(),
    unknown_verdicts: z.number().int().nonnegative(),
    protected_differences: z.number().int().nonnegative(),
    metrics: PhaseFigures,
    suggestion: Suggestion,
    /** The phase its figures qualify for under the node's promotion rules. */
    qualifies_for: LifecyclePhase,
  })
  .strict();
export type TrialFigures = z.infer<typeof TrialFigures>;

export const TrialReport = z
  .object({
    node: TrialNode,
    current_phase: LifecyclePhase,
    /** The node's promotion rules the figures were measured against. */
    rules: z.object({ min_examples: z.number().int().positive(), promote_agreement: z.number().min(0).max(1), demote_block_rate: z.number().min(0).max(1) }).strict(),
    rounds_asked: z.number().int().positive(),
    rounds: z.number().int().nonnegative(),
    /**
     * A trial cancelled part way (a person pressed Cancel, or Ctrl-C): the rounds done (`after`) of
     * those it was to replay (`of`). The figures cover only those rounds; absent: it ran to the end.
     */
    stopped: z.object({ after: z.number().int().nonnegative(), of: z.number().int().positive() }).strict().optional(),
    candidate: TrialFigures,
    current: TrialFigures,
    /** Rounds where the candidate proposed the original student's decision (the recorded verdict applies to it). */
    same_as_student: z.number().int().nonnegative(),
    /** The rounds where a protected effect was proposed differently, and those that failed validation (their indexes in the trial). */
    protected_rounds: z.array(z.number().int().nonnegative()),
    invalid_rounds: z.array(z.number().int().nonnegative()),
    latency_ms: z.object({ mean: z.number().nonnegative(), median: z.number().nonnegative(), p95: z.number().nonnegative(), total: z.number().nonnegative() }).strict(),
    tokens: z.object({ input_per_round: z.number().nonnegative().nullable(), output_per_round: z.number().nonnegative().nullable() }).strict(),
    /** The report in sentences, headline first. */
    words: z.array(z.string()),
  })
  .strict();
export type TrialReport = z.infer<typeof TrialReport>;
