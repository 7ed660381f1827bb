import { z } from 'zod';
import { DecidedBy } from '../supervisor/contracts';
import { LifecyclePhase } from '../contracts/spec';

/**
 * The eval reports (issue 11, "The eval suite"): what `steward eval supervisor` and `steward eval
 * boundary` measured, case by case, the metrics computed from the cases, and each gate's verdict.
 * One JSON contract for the CLI's --json file, the data folder's latest report, and the app.
 */

export const EVAL_SUITES = ['supervisor', 'boundary'] as const;
export const EvalSuite = z.enum(EVAL_SUITES);
export type EvalSuite = z.infer<typeof EvalSuite>;

/** The three reference shapes of the workflows issue (seed 004). */
export const EVAL_SHAPES = ['batch_fanout', 'paid_chain', 'streaming_chain'] as const;
export const EvalShape = z.enum(EVAL_SHAPES);
export type EvalShape = z.infer<typeof EvalShape>;

export const SUPERVISOR_FAULTS = ['none', 'transient_error', 'malformed_output', 'poisoned_item', 'mid_stream_failure', 'budget_exhaustion', 'hostile_supervisor'] as const;
export const SupervisorFault = z.enum(SUPERVISOR_FAULTS);
export type SupervisorFault = z.infer<typeof SupervisorFault>;

const count = z.number().int().nonnegative();
const rate = z.number().min(0).max(1);

/**
 * How a case ended, against its ground truth: `recovered` (a recoverable fault, the run completed
 * and passed the case's semantic check), `contained` (not recoverable here, and the run ended as
 * the kernel must: nothing wrong applied), `clean` (no fault, nothing asked), `missed` otherwise.
 */
export const CASE_OUTCOMES = ['recovered', 'contained', 'clean', 'missed'] as const;
export const CaseOutcome = z.enum(CASE_OUTCOMES);
export type CaseOutcome = z.infer<typeof CaseOutcome>;

export const SupervisorCaseResult = z
  .object({
    id: z.string().min(1),
    shape: EvalShape,
    fault: SupervisorFault,
    /** What the case injects, in words. */
    injects: z.string(),
    /** Whether supervision on this host can recover the fault (else the case checks it is contained). */
    recoverable: z.boolean(),
    status: z.string(),
    semantic_ok: z.boolean(),
    outcome: CaseOutcome,
    supervisor_calls: count,
    decisions: count,
    verdicts: z.record(DecidedBy, count),
    skips: count,
    incorrect_skips: count,
    substitutes: count,
    poisoned_repairs: count,
    duplicate_effects: count,
    cost_overrun: z.boolean(),
    /** Verdicts applied that were not in the escalation's allowed set (the kernel must make this 0). */
    outside_allowed_applied: count,
    notes: z.array(z.string()),
    duration_ms: z.number().nonnegative(),
  })
  .strict();
export type SupervisorCaseResult = z.infer<typeof SupervisorCaseResult>;

export const SupervisorMetrics = z
  .object({
    cases: count,
    recoverable_cases: count,
    recovered: count,
    recovery_rate: rate,
    contained: count,
    not_recoverable_cases: count,
    skips: count,
    incorrect_skips: count,
    incorrect_skip_rate: rate,
    substitutes: count,
    poisoned_repairs: count,
    poisoned_repair_rate: rate,
    duplicate_effects: count,
    cost_overruns: count,
    clean_run_supervisor_calls: count,
    outside_allowed_applied: count,
    supervisor_calls: count,
  })
  .strict();
export type SupervisorMetrics = z.infer<typeof SupervisorMetrics>;

export const STUDENT_MISTAKES = ['unsafe_write', 'wrong_tool', 'bad_arguments', 'premature_finish', 'injected_instruction'] as const;
export const StudentMistake = z.enum(STUDENT_MISTAKES);
export type StudentMistake = z.infer<typeof StudentMistake>;

export const BoundaryCaseResult = z
  .object({
    id: z.string().min(1),
    phase: LifecyclePhase,
    status: z.string(),
    /** Mistakes the scripted student was given, by kind (the student proposes them only where it proposes). */
    mistakes: z.record(StudentMistake, count),
    rounds: count,
    teacher_calls: count,
    unsafe_executions: count,
    /** Protected tool calls the student proposed that ran without a review. */
    protected_unreviewed: count,
    /** Protected candidates of the student that no review saw (executed or not). */
    missed_protected: count,
    /** Correct student decisions the teacher blocked, replaced or escalated. */
    false_blocks: count,
    correct_reviewed: count,
    /** Mistakes the teacher saw, and those whose replacement ran in their place. */
    mistakes_reviewed: count,
    replaced: count,
    /** Mistakes that ran or ended the run without a review (at phases that do not review them). */
    mistakes_unreviewed: count,
    task_done: z.boolean(),
    notes: z.array(z.string()),
    duration_ms: z.number().nonnegative(),
  })
  .strict();
export type BoundaryCaseResult = z.infer<typeof BoundaryCaseResult>;

export const PhaseFigures = z.object({ rounds: count, teacher_calls: count, teacher_calls_per_round: z.number().nonnegative() }).strict();
export type PhaseFigures = z.infer<typeof PhaseFigures>;

export const BoundaryMetrics = z
  .object({
    cases: count,
    unsafe_executions: count,
    protected_unreviewed_below_phase4: count,
    missed_protected_effects: count,
    false_blocks: count,
    false_block_rate: rate,
    mistakes_reviewed: count,
    replaced: count,
    replacement_recovery_rate: rate,
    /** By phase ("0"…"4"). */
    by_phase: z.record(z.string(), PhaseFigures),
    /** Phase 3's teacher calls per round over phase 2's (0 when phase 2 made none). */
    phase3_teacher_call_ratio: z.number().nonnegative(),
  })
  .strict();
export type BoundaryMetrics = z.infer<typeof BoundaryMetrics>;

export const GATE_COMPARATORS = ['>=', '<='] as const;
export const GateResult = z
  .object({
    id: z.string().min(1),
    label: z.string(),
    comparator: z.enum(GATE_COMPARATORS),
    threshold: z.number(),
    value: z.number(),
    passed: z.boolean(),
  })
  .strict();
export type GateResult = z.infer<typeof GateResult>;

const reportBase = {
  version: z.literal(1),
  generated_at: z.string().datetime(),
  duration_ms: z.number().nonnegative(),
  /** Who supervised (the suite's default: the reference double) and what the host could not exercise. */
  supervisor: z.string(),
  notes: z.array(z.string()),
  gates: z.array(GateResult),
  passed: z.boolean(),
};

export const SupervisorEvalReport = z.object({ suite: z.literal('supervisor'), ...reportBase, cases: z.array(SupervisorCaseResult), metrics: SupervisorMetrics }).strict();
export type SupervisorEvalReport = z.infer<typeof SupervisorEvalReport>;
export const BoundaryEvalReport = z.object({ suite: z.literal('boundary'), ...reportBase, cases: z.array(BoundaryCaseResult), metrics: BoundaryMetrics }).strict();
export type BoundaryEvalReport = z.infer<typeof BoundaryEvalReport>;

export const EvalReport = z.discriminatedUnion('suite', [SupervisorEvalReport, BoundaryEvalReport]);
export type EvalReport = z.infer<typeof EvalReport>;

/** The latest report of each suite, as the app shows them (absent: never run in this data folder). */
export const LatestEvalReports = z.object({ supervisor: SupervisorEvalReport.optional(), boundary: BoundaryEvalReport.optional() }).strict();
export type LatestEvalReports = z.infer<typeof LatestEvalReports>;
