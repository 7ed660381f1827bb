import { z } from 'zod';

/**
 * SCS — Student · Committee · Supervisor (seed 001, DESIGN.md §5). Inside SCS the names are the
 * seed's reversed ones: the *committee* drafts a phase plan, the *student* (the monitor) approves,
 * vetoes or asks for a rethink on evidence, and the *supervisor* (the executor) runs the approved
 * phase, every round still through the decision boundary. The UI says "Student · monitor",
 * "Committee · planner", "Supervisor · executor".
 */

export const SCS_MODES = ['off', 'on', 'auto'] as const;
/** At most this many alternative plans in one committee draft. */
export const ALTERNATIVES_MAX = 3;
export const ScsMode = z.enum(SCS_MODES);
export type ScsMode = z.infer<typeof ScsMode>;

export const SCS_ROLE_LABELS = {
  committee: 'Committee · planner',
  monitor: 'Student · monitor',
  executor: 'Supervisor · executor',
} as const;

export const ScsSettings = z
  .object({
    mode: ScsMode.default('off'),
    /** Which of the node's models plays committee and monitor (the seed: the main model, the student). */
    model: z.enum(['student', 'teacher']).default('student'),
    /** The monitor reviews progress every N executor rounds (besides failures and the finish). */
    monitor_every: z.number().int().min(1).max(50).default(4),
    /** Committee drafts after a veto, before the phase is blocked. */
    max_committee_retries: z.number().int().min(0).max(5).default(2),
    /** Times a rejected phase may be replanned. */
    max_replans: z.number().int().min(0).max(5).default(2),
    /** Step-budget extensions the monitor may grant, and rounds per extension at most. */
    max_extensions: z.number().int().min(0).max(5).default(2),
    extension_rounds: z.number().int().min(1).max(20).default(4),
    /** Ask about the budget when this many rounds are left. */
    budget_warning: z.number().int().min(1).max(10).default(2),
    /** The same failure this many times in a row is a loop: the monitor is asked. */
    loop_guard: z.number().int().min(2).max(10).default(2),
    /** auto: activate when the step budget is at least this long. */
    auto_long_budget: z.number().int().min(2).max(200).default(20),
    /** Rolling phases: after an accepted phase the committee drafts the next, up to this many phases (replans included). */
    max_phases: z.number().int().min(1).max(20).default(5),
    /** Characters of decisions (executor rounds, monitor gates) an SCS prompt carries: newest verbatim, older summarised. */
    transcript_budget: z.number().int().min(500).max(50_000).default(4000),
    /** A batch of file changes: after this many successful write-effect calls since the last review, the monitor reviews (0: off). */
    file_batch: z.number().int().min(0).max(50).default(5),
    /** Alternative phase plans the committee is asked to draft (1: a single plan); the student selects one, may edit it, or vetoes all. */
    alternatives: z.number().int().min(1).max(ALTERNATIVES_MAX).default(1),
  })
  .strict();
export type ScsSettings = z.infer<typeof ScsSettings>;

/** The committee's output: one phase, not the whole task. */
export const PhasePlan = z
  .object({
    phase_goal: z.string().min(1).max(400),
    plan: z.array(z.string().min(1).max(400)).min(3).max(6),
    acceptance_criteria: z.array(z.string().min(1).max(400)).min(1).max(10),
    allowed_tools: z.array(z.string().min(1)).max(50),
    /**
     * When the runtime stops the phase for review: quoted result text (`"ENOENT"`), `same failure
     * twice`, or `any failure` are checked after every round (stop-conditions.ts); other text is advice.
     */
    stop_conditions: z.array(z.string().min(1).max(400)).max(10).default([]),
    /** The phase brief's first step, enforced: the tool (one of allowed_tools) the executor must call first. */
    next_required_action: z.string().min(1).max(100).optional(),
  })
  .strict();
export type PhasePlan = z.infer<typeof PhasePlan>;

/** Alternative phase plans from one committee draft: the student selects one (by number), may edit it, or vetoes all. */
export const PlanAlternatives = z.object({ alternatives: z.array(PhasePlan).min(2).max(ALTERNATIVES_MAX) }).strict();
export type PlanAlternatives = z.infer<typeof PlanAlternatives>;
/** What the committee may answer: one phase plan, or alternatives. */
export const CommitteeDraft = z.union([PhasePlan, PlanAlternatives]);
export type CommitteeDraft = z.infer<typeof CommitteeDraft>;

export const MONITOR_DECISIONS = [
  'approve_plan',
  'veto_plan',
  'rethink_plan',
  'accept_phase',
  'reject_phase',
  'finish_allowed',
  'finish_rejected',
  'extend_steps',
  'deny_extension',
] as const;
export const MonitorDecisionKind = z.enum(MONITOR_DECISIONS);
export type MonitorDecisionKind = z.infer<typeof MonitorDecisionKind>;

/** The student's (monitor's) typed gate: it has no authority beyond these decisions. */
export const MonitorDecision = z
  .object({
    decision: MonitorDecisionKind,
    confidence: z.number().min(0).max(1),
    /** Event ids (and short facts) the decision rests on. */
    evidence: z.array(z.string().min(1)).max(40).default([]),
    reason: z.string().min(1).max(600),
    next_required_action: z.enum(['committee_rethink', 'supervisor_execute', 'supervisor_continue', 'finish']).optional(),
    /** extend_steps: how many rounds (bounded by the settings). */
    extend_by: z.number().int().min(1).max(20).optional(),
    /** approve_plan over alternatives: which one (1-based; absent: the first). */
    choice: z.number().int().min(1).max(ALTERNATIVES_MAX).optional(),
    /**
     * approve_plan: the student's edit of the chosen plan — fields replacing the plan's own. The
     * edited plan is validated like a plan; an invalid edit is refused (the student is asked again once).
     */
    edit: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type MonitorDecision = z.infer<typeof MonitorDecision>;

/** Why the monitor is asked now. */
export const MONITOR_TRIGGERS = ['plan', 'tool_failure', 'loop_guard', 'periodic', 'finish', 'budget', 'stop_condition', 'file_batch'] as const;
export const MonitorTrigger = z.enum(MONITOR_TRIGGERS);
export type MonitorTrigger = z.infer<typeof MonitorTrigger>;

/** Which decisions answer which trigger; anything else is not a usable answer. */
export const DECISIONS_FOR_TRIGGER = {
  plan: ['approve_plan', 'veto_plan', 'rethink_plan'],
  tool_failure: ['accept_phase', 'reject_phase', 'rethink_plan'],
  loop_guard: ['accept_phase', 'reject_phase', 'rethink_plan'],
  periodic: ['accept_phase', 'reject_phase', 'rethink_plan'],
  finish: ['finish_allowed', 'finish_rejected'],
  budget: ['extend_steps', 'deny_extension'],
  stop_condition: ['accept_phase', 'reject_phase', 'rethink_plan'],
  file_batch: ['accept_phase', 'reject_phase', 'rethink_plan'],
} as const satisfies Record<MonitorTrigger, readonly MonitorDecisionKind[]>;

/** A write-effect tool call of the phase: its target (path or arguments summary, sensitive ones masked) and result. */
export const ChangedFile = z
  .object({
    round: z.number().int().nonnegative(),
    tool: z.string(),
    target: z.string().max(300),
    result: z.string().max(300),
    ok: z.boolean(),
  })
  .strict();
export type ChangedFile = z.infer<typeof ChangedFile>;

/** What a round meant for SCS: the executor's round, reduced to the facts the monitor works from. */
export const RoundFact = z
  .object({
    round: z.number().int().nonnegative(),
    outcome: z.enum(['executed', 'delivered', 'blocked', 'escalated', 'failed']),
    reason: z.string().optional(),
    tool: z.string().optional(),
    /** Canonical arguments, for the loop guard: the same call failing again. */
    call_key: z.string().optional(),
    failed: z.boolean(),
    summary: z.string(),
    event_ids: z.array(z.string()),
    /** The tool's result text (masked, cut), for matching stop conditions; never put in a prompt whole. */
    result: z.string().max(2000).optional(),
    /** A call of a tool with a write effect: what it changed (the evidence pack's changed files). */
    changed: ChangedFile.optional(),
  })
  .strict();
export type RoundFact = z.infer<typeof RoundFact>;

/** The evidence pack (seed 001 bounds): the last 20 events, the plan, the failures, the criteria. */
export const EvidencePack = z
  .object({
    trigger: MonitorTrigger,
    task: z.string(),
    plan: PhasePlan.optional(),
    recent: z.array(z.object({ id: z.string(), type: z.string(), summary: z.string() }).strict()).max(20),
    failures: z.array(RoundFact).max(20),
    acceptance_criteria: z.array(z.string()),
    /** The phase's write-effect calls, newest last. */
    changed_files: z.array(ChangedFile).max(20).default([]),
    /** The decisions so far within the transcript budget (transcript-budget.ts). */
    transcript: z.string().default(''),
    rounds_used: z.number().int().nonnegative(),
    budget: z.number().int().nonnegative(),
    note: z.string().optional(),
  })
  .strict();
export type EvidencePack = z.infer<typeof EvidencePack>;

export const SCS_STATUSES = ['planning', 'executing', 'monitoring', 'finished', 'blocked', 'off'] as const;

/** The SCS part of a run's result (`--json`): what was planned, decided and why. */
export const ScsRecord = z
  .object({
    mode: ScsMode,
    active: z.boolean(),
    reason: z.string(),
    model: z.string(),
    phase: z.number().int().nonnegative(),
    plan: PhasePlan.optional(),
    decision: MonitorDecisionKind.optional(),
    status: z.enum(SCS_STATUSES),
    blocked_reasons: z.array(z.string()).default([]),
    extensions: z.number().int().nonnegative().default(0),
  })
  .strict();
export type ScsRecord = z.infer<typeof ScsRecord>;
