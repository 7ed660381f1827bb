import { and, assign, emit, fromPromise, setup } from 'xstate';
import { allIssueWordsIn } from '../workflow/schema-problems';
import type { RunEventPayload } from '../contracts/events';
import {
  DECISIONS_FOR_TRIGGER,
  MonitorDecision,
  PhasePlan,
  PlanAlternatives,
  type ChangedFile,
  type MonitorTrigger,
  type RoundFact,
  type ScsSettings,
} from './contracts';
import { applyPlanEdit } from './plan-edit';
import { requiredByDecision, requiredByPlan, usesUp, type RequiredAction } from './required-action';
import { matchStopCondition, type StopMatch } from './stop-conditions';

/**
 * SCS as a gated phase controller (seed 001): the committee drafts a phase plan, the student
 * (monitor) gates it, the supervisor (executor) runs only the approved phase, and the monitor is
 * asked again on failures, loops, every N rounds, near the step budget and before the finish.
 * The run loop drives it with ROUND_DONE / FINISH_REQUESTED; the models are host-provided actors.
 * Every bound ends in a clear state: a bound that runs out blocks, it never approves silently.
 *
 * Rolling phases: an accepted phase (accept_phase, unless its next_required_action keeps the phase
 * going — supervisor_continue — or asks for the finish) sends the committee to draft the next
 * milestone, up to `max_phases`. A round that matches a stop condition (stop-conditions.ts) stops
 * the phase with its evidence (`scs.supervisor.phase_stopped`) for the monitor's review. What the
 * executor must do next (required-action.ts) is kept in `required`, for the boundary to enforce.
 */

export interface ScsInput {
  settings: ScsSettings;
  /** The run's step budget (max rounds) at the start. */
  budget: number;
  /** Protected tools are in play: a monitor failure fails closed (read-only work fails open). */
  writeWork: boolean;
}

export interface CommitteeInput {
  phase: number;
  attempt: number;
  /** Why earlier drafts were vetoed, or why the phase is being replanned. */
  feedback: string[];
  facts: RoundFact[];
}

export interface MonitorInput {
  trigger: MonitorTrigger;
  phase: number;
  plan?: PhasePlan;
  /** A plan review over alternatives: every plan the committee drafted (`plan` is the first). */
  alternatives?: PhasePlan[];
  /** Why the student's last answer to this plan review was refused (its edit, its choice): it is asked again. */
  refusal?: string;
  facts: RoundFact[];
  rounds_used: number;
  budget: number;
}

export type ScsEvent = { type: 'ROUND_DONE'; fact: RoundFact } | { type: 'FINISH_REQUESTED'; round: number };
export type ScsEmitted = RunEventPayload;

export interface ScsContext extends ScsInput {
  phase: number;
  plan?: PhasePlan;
  draft?: PhasePlan;
  /** The committee's alternative plans for the phase under review (empty: a single plan, `draft`). */
  alternatives: PhasePlan[];
  /** Why the student's approval could not be used (an invalid edit, a choice out of range), while it is asked again. */
  refusal?: string;
  /** Times the student was asked again about this draft after a refused approval. */
  refusals: number;
  /** Successful write-effect calls since the monitor last reviewed (the file-batch trigger). */
  filesSinceReview: number;
  attempts: number;
  feedback: string[];
  replans: number;
  extensions: number;
  budgetAskedAt?: number;
  facts: RoundFact[];
  sinceMonitor: number;
  trigger?: MonitorTrigger;
  decision?: MonitorDecision;
  /** Why the last monitor answer could not be used (malformed, wrong kind, the call failed). */
  problem?: string;
  finishRejection?: string;
  blockedReasons: string[];
  /** Index in `facts` of the current phase's first round. */
  phaseStart: number;
  /** What the executor's next decision must be (the boundary refuses a contradiction). */
  required?: RequiredAction;
  /** The stop condition the phase stopped on, while the monitor reviews it. */
  stop?: StopMatch;
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * Both keys are always set: the result is assigned into the context, and an unusable answer must
 * clear the previous decision, or the judging step would act on the last review's decision again.
 */
function parseDecision(raw: unknown, trigger: MonitorTrigger): { decision: MonitorDecision | undefined; problem: string | undefined } {
  const parsed = MonitorDecision.safeParse(raw);
  if (!parsed.success) {
    return { decision: undefined, problem: `the monitor's answer was malformed: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'decision'}: ${i.message}`).join('; ')}` };
  }
  const allowed: readonly string[] = DECISIONS_FOR_TRIGGER[trigger];
  if (!allowed.includes(parsed.data.decision)) return { decision: undefined, problem: `"${parsed.data.decision}" does not answer a ${trigger} review (expected ${allowed.join(' or ')})` };
  // The finish gate (seed 001): the run may complete only after the monitor has seen evidence.
  if (parsed.data.decision === 'finish_allowed' && parsed.data.evidence.length === 0) {
    return { decision: undefined, problem: 'finish_allowed cites no evidence for the acceptance criteria' };
  }
  return { decision: parsed.data, problem: undefined };
}

/** The student may be asked again this many times about one draft after its approval was refused. */
const REFUSAL_RETRIES = 1;

/** The committee's answer (its problems in words, never the schema's own text: a person reads them in the SCS timeline): one plan, or alternatives (the first is the draft the machine carries). */
function parseDraft(raw: unknown): { draft: PhasePlan; alternatives: PhasePlan[] } | { problem: string } {
  if (typeof raw === 'object' && raw !== null && Object.hasOwn(raw, 'alternatives')) {
    const parsed = PlanAlternatives.safeParse(raw);
    if (!parsed.success) return { problem: `the committee's alternative plans were malformed: ${allIssueWordsIn(raw, parsed.error.issues, 'alternatives')}` };
    const [first] = parsed.data.alternatives;
    return first ? { draft: first, alternatives: parsed.data.alternatives } : { problem: 'the committee drafted no alternative plans' };
  }
  const parsed = PhasePlan.safeParse(raw);
  return parsed.success ? { draft: parsed.data, alternatives: [] } : { problem: `the committee's plan was malformed: ${allIssueWordsIn(raw, parsed.error.issues, 'plan')}` };
}

/**
 * A plan review's answer: an approval names the plan it approves (`choice`, among alternatives) and
 * may edit it; the plan that results is validated like a committee's plan. A choice out of range or
 * an invalid edit is a refusal, in words (the student is asked again, then it counts as a veto).
 */
function parsePlanDecision(
  raw: unknown,
  context: Pick<ScsContext, 'draft' | 'alternatives'>,
): { decision: MonitorDecision | undefined; problem: string | undefined; refusal: string | undefined; draft?: PhasePlan } {
  const base = parseDecision(raw, 'plan');
  const { decision } = base;
  if (!decision || decision.decision !== 'approve_plan') return { ...base, refusal: undefined };
  const options = context.alternatives.length > 0 ? context.alternatives : context.draft ? [context.draft] : [];
  const choice = decision.choice ?? 1;
  const chosen = options[choice - 1];
  if (!chosen) {
    return { ...base, refusal: `the student chose plan ${choice}, but the committee drafted ${options.length === 1 ? 'one plan' : `${options.length} plans`}` };
  }
  if (!decision.edit) return { ...base, refusal: undefined, draft: chosen };
  const edited = applyPlanEdit(chosen, decision.edit);
  if ('problem' in edited) return { ...base, refusal: `the student's edit of plan ${choice} ${edited.problem}` };
  return { ...base, refusal: undefined, draft: edited.plan };
}

/** The same call failed `n` times in a row at the end of the facts. */
function repeatedFailure(facts: readonly RoundFact[], n: number): boolean {
  const tail = facts.slice(-n);
  return tail.length === n && tail.every((f) => f.failed && f.call_key !== undefined && f.call_key === tail[0]?.call_key);
}

const decisionIs = (ctx: ScsContext, ...kinds: MonitorDecision['decision'][]) => ctx.decision !== undefined && kinds.includes(ctx.decision.decision);
const acceptWith = (ctx: ScsContext, next: MonitorDecision['next_required_action']) => decisionIs(ctx, 'accept_phase') && ctx.decision?.next_required_action === next;

/** The current phase's rounds. */
export const phaseFacts = (ctx: Pick<ScsContext, 'facts' | 'phaseStart'>): RoundFact[] => ctx.facts.slice(ctx.phaseStart);
/** The current phase's write-effect calls (the evidence pack's changed files), newest last. */
export const changedFiles = (ctx: Pick<ScsContext, 'facts' | 'phaseStart'>): ChangedFile[] => phaseFacts(ctx).flatMap((f) => (f.changed ? [f.changed] : [])).slice(-20);

export const scsMachine = setup({
  types: {
    context: {} as ScsContext,
    input: {} as ScsInput,
    events: {} as ScsEvent,
    emitted: {} as ScsEmitted,
  },
  actors: {
    committee: fromPromise<unknown, CommitteeInput>(async () => {
      throw new Error('no committee actor provided');
    }),
    monitor: fromPromise<unknown, MonitorInput>(async () => {
      throw new Error('no monitor actor provided');
    }),
  },
  guards: {
    draftValid: ({ context }) => context.draft !== undefined,
    committeeRetriesLeft: ({ context }) => context.attempts <= context.settings.max_committee_retries,
    monitorUnusable: ({ context }) => context.decision === undefined,
    writeWork: ({ context }) => context.writeWork,
    approved: ({ context }) => decisionIs(context, 'approve_plan'),
    /** The student's approval was refused (an invalid edit, a choice out of range) and it may be asked again. */
    refusedAskAgain: ({ context }) => context.refusal !== undefined && context.refusals < REFUSAL_RETRIES,
    /** Refused again: it counts as a veto of the draft. */
    refused: ({ context }) => context.refusal !== undefined,
    /** A batch of file changes (file_batch successful write-effect calls) since the monitor's last review. */
    fileBatchDue: ({ context }) => context.settings.file_batch > 0 && context.filesSinceReview >= context.settings.file_batch,
    finishAllowed: ({ context }) => decisionIs(context, 'finish_allowed'),
    finishRejected: ({ context }) => decisionIs(context, 'finish_rejected'),
    extend: ({ context }) => decisionIs(context, 'extend_steps'),
    deny: ({ context }) => decisionIs(context, 'deny_extension'),
    /** accept_phase whose next_required_action keeps the phase going: a progress check, not the phase's end. */
    acceptContinues: ({ context }) => acceptWith(context, 'supervisor_continue'),
    /** accept_phase whose next_required_action is finish: the goal is met, the executor must finish now. */
    acceptFinishes: ({ context }) => acceptWith(context, 'finish'),
    /** accept_phase (any other next_required_action) with phases left: the committee drafts the next milestone. */
    acceptNextPhase: ({ context }) => decisionIs(context, 'accept_phase') && context.phase < context.settings.max_phases,
    replansLeft: ({ context }) => context.replans < context.settings.max_replans && context.phase < context.settings.max_phases,
    stopMatched: ({ context }) => context.plan !== undefined && matchStopCondition(context.plan.stop_conditions, phaseFacts(context)) !== undefined,
    triggeredByPlan: ({ context }) => context.trigger === 'plan',
    triggeredByFinish: ({ context }) => context.trigger === 'finish',
    loopDetected: ({ context }) => repeatedFailure(context.facts, context.settings.loop_guard),
    lastRoundFailed: ({ context }) => context.facts.at(-1)?.failed === true,
    periodicDue: ({ context }) => context.sinceMonitor >= context.settings.monitor_every,
    budgetLow: ({ context }) =>
      context.budget - context.facts.length <= context.settings.budget_warning &&
      context.extensions < context.settings.max_extensions &&
      context.budgetAskedAt !== context.budget,
  },
  actions: {
    emitDrafted: emit(({ context }) => ({
      type: 'scs.committee.plan_drafted' as const,
      phase: context.phase + 1,
      attempt: context.attempts,
      plan: context.draft,
      error: context.draft ? undefined : context.feedback.at(-1),
      ...(context.alternatives.length > 0 ? { alternatives: context.alternatives } : {}),
    })),
    emitRefusal: emit(({ context }) => ({
      type: 'scs.warning' as const,
      message: `The student's approval was refused: ${context.refusal ?? 'unknown'}. ${context.refusals < REFUSAL_RETRIES ? 'The student is asked again.' : 'It counts as a veto: no plan was approved from this draft.'}`,
    })),
    emitMonitor: emit(({ context }) => {
      const decision = context.decision ?? { decision: 'veto_plan' as const, confidence: 0, evidence: [], reason: 'unusable' };
      const type = ({
        approve_plan: 'scs.student.plan_approved',
        veto_plan: 'scs.student.plan_vetoed',
        rethink_plan: 'scs.student.rethink_requested',
        accept_phase: 'scs.student.phase_accepted',
        reject_phase: 'scs.student.phase_rejected',
        finish_allowed: 'scs.student.finish_allowed',
        finish_rejected: 'scs.student.finish_rejected',
        extend_steps: 'scs.budget.extended',
        deny_extension: 'scs.budget.denied',
      } as const)[decision.decision];
      // A plan review is about the phase being drafted (the one phase_started will announce).
      const trigger = context.trigger ?? 'plan';
      const alternatives = trigger === 'plan' && context.alternatives.length > 1 ? context.alternatives.length : undefined;
      return { type, phase: trigger === 'plan' ? context.phase + 1 : context.phase, trigger, decision, budget: context.budget, ...(alternatives ? { alternatives } : {}) };
    }),
    emitPhaseStarted: emit(({ context }) => ({
      type: 'scs.supervisor.phase_started' as const,
      phase: context.phase,
      plan: context.plan ?? { phase_goal: '', plan: ['', '', ''], acceptance_criteria: [''], allowed_tools: [], stop_conditions: [] },
    })),
    emitBlocked: emit(({ context }) => ({ type: 'scs.supervisor.phase_blocked' as const, phase: Math.max(context.phase, 1), reasons: context.blockedReasons })),
    emitStopped: emit(({ context }) => ({
      type: 'scs.supervisor.phase_stopped' as const,
      phase: Math.max(context.phase, 1),
      round: context.stop?.round ?? 0,
      condition: context.stop?.condition ?? '',
      matched: context.stop?.matched ?? '',
      evidence: context.stop?.evidence ?? [],
      changed_files: changedFiles(context),
    })),
    requireFromDecision: assign(({ context }) => ({ required: context.decision ? requiredByDecision(context.decision) : undefined })),
    emitWarning: emit(({ context }) => ({
      type: 'scs.warning' as const,
      message: `the monitor could not decide (${context.problem ?? 'unknown'}); read-only work continues without its gate`,
    })),
    startPhase: assign(({ context }) => ({
      plan: context.draft,
      phase: context.phase + 1,
      phaseStart: context.facts.length,
      sinceMonitor: 0,
      attempts: 0,
      feedback: [],
      finishRejection: undefined,
      stop: undefined,
      // The brief's first tool, else what the approval asks for (nothing on a read-only fail-open).
      required: (context.draft ? requiredByPlan(context.draft, context.phase + 1) : undefined) ?? (context.decision ? requiredByDecision(context.decision) : undefined),
    })),
  },
}).createMachine({
  id: 'scs',
  context: ({ input }) => ({
    ...input,
    phase: 0,
    alternatives: [],
    refusals: 0,
    filesSinceReview: 0,
    attempts: 0,
    feedback: [],
    replans: 0,
    extensions: 0,
    facts: [],
    sinceMonitor: 0,
    blockedReasons: [],
    phaseStart: 0,
  }),
  initial: 'planning',
  states: {
    planning: {
      entry: assign(({ context }) => ({ attempts: context.attempts + 1, draft: undefined, alternatives: [], refusal: undefined, refusals: 0 })),
      invoke: {
        id: 'committee',
        src: 'committee',
        input: ({ context }) => ({ phase: context.phase + 1, attempt: context.attempts, feedback: context.feedback, facts: context.facts.slice(-20) }),
        onDone: {
          target: 'drafted',
          actions: assign(({ context, event }) => {
            const parsed = parseDraft(event.output);
            return 'problem' in parsed ? { feedback: [...context.feedback, parsed.problem] } : parsed;
          }),
        },
        onError: {
          target: 'blocked',
          actions: assign(({ context, event }) => ({ blockedReasons: [...context.feedback, `the committee could not draft a plan: ${errorText(event.error)}`] })),
        },
      },
    },
    drafted: {
      entry: 'emitDrafted',
      always: [
        { guard: 'draftValid', target: 'reviewingPlan', actions: assign({ trigger: 'plan' as const }) },
        { guard: 'committeeRetriesLeft', target: 'planning' },
        { target: 'blocked', actions: assign(({ context }) => ({ blockedReasons: context.feedback })) },
      ],
    },
    reviewingPlan: {
      invoke: {
        id: 'monitor',
        src: 'monitor',
        input: ({ context }) => ({
          trigger: 'plan' as const,
          phase: context.phase + 1,
          plan: context.draft,
          ...(context.alternatives.length > 0 ? { alternatives: context.alternatives } : {}),
          ...(context.refusal ? { refusal: context.refusal } : {}),
          facts: context.facts.slice(-20),
          rounds_used: context.facts.length,
          budget: context.budget,
        }),
        onDone: { target: 'judgingPlan', actions: assign(({ context, event }) => parsePlanDecision(event.output, context)) },
        onError: { target: 'monitorFailed', actions: assign(({ event }) => ({ decision: undefined, problem: `the monitor failed: ${errorText(event.error)}` })) },
      },
    },
    judgingPlan: {
      always: [
        { guard: 'monitorUnusable', target: 'monitorFailed' },
        { guard: 'refusedAskAgain', target: 'reviewingPlan', actions: ['emitRefusal', assign(({ context }) => ({ refusals: context.refusals + 1 }))] },
        // Refused again: it counts as a veto — the committee drafts again with the refusal as feedback, bounded like a veto.
        {
          guard: and(['refused', 'committeeRetriesLeft']),
          target: 'planning',
          actions: ['emitRefusal', assign(({ context }) => ({ feedback: [...context.feedback, `the student approved no valid plan: ${context.refusal ?? ''}`] }))],
        },
        {
          guard: 'refused',
          target: 'blocked',
          actions: [
            'emitRefusal',
            assign(({ context }) => ({ blockedReasons: [...context.feedback, `the student approved no valid plan: ${context.refusal ?? ''}`, `no plan was approved after ${context.attempts} draft(s)`] })),
          ],
        },
        { guard: 'approved', target: 'executing', actions: ['emitMonitor', 'startPhase', 'emitPhaseStarted'] },
        {
          guard: 'committeeRetriesLeft',
          target: 'planning',
          actions: ['emitMonitor', assign(({ context }) => ({ feedback: [...context.feedback, context.decision?.reason ?? 'vetoed'] }))],
        },
        {
          target: 'blocked',
          actions: [
            'emitMonitor',
            assign(({ context }) => ({
              blockedReasons: [...context.feedback, context.decision?.reason ?? 'vetoed', `no plan was approved after ${context.attempts} draft(s)`],
            })),
          ],
        },
      ],
    },
    executing: {
      on: {
        ROUND_DONE: {
          target: 'checkingTriggers',
          actions: assign(({ context, event }) => ({
            facts: [...context.facts, event.fact],
            sinceMonitor: context.sinceMonitor + 1,
            filesSinceReview: context.filesSinceReview + (event.fact.changed?.ok === true ? 1 : 0),
            // A decision that crossed the boundary (which enforced the requirement) uses it up.
            required: usesUp(event.fact) ? undefined : context.required,
          })),
        },
        FINISH_REQUESTED: { target: 'monitoring', actions: assign({ trigger: 'finish' as const, required: undefined }) },
      },
    },
    checkingTriggers: {
      always: [
        // The plan's own stop conditions first: the phase stops with its evidence for review.
        {
          guard: 'stopMatched',
          target: 'monitoring',
          actions: [
            assign(({ context }) => ({ trigger: 'stop_condition' as const, stop: context.plan ? matchStopCondition(context.plan.stop_conditions, phaseFacts(context)) : undefined })),
            'emitStopped',
          ],
        },
        { guard: 'loopDetected', target: 'monitoring', actions: assign({ trigger: 'loop_guard' as const }) },
        { guard: 'lastRoundFailed', target: 'monitoring', actions: assign({ trigger: 'tool_failure' as const }) },
        // The budget before the periodic review: with monitor_every 1 a periodic review is due every
        // round and would starve the budget question (the next round still gets its periodic review).
        { guard: 'budgetLow', target: 'monitoring', actions: assign(({ context }) => ({ trigger: 'budget' as const, budgetAskedAt: context.budget })) },
        { guard: 'fileBatchDue', target: 'monitoring', actions: assign({ trigger: 'file_batch' as const }) },
        { guard: 'periodicDue', target: 'monitoring', actions: assign({ trigger: 'periodic' as const }) },
        { target: 'executing' },
      ],
    },
    monitoring: {
      // Every review sees the phase's changed files: the file batch starts again.
      entry: assign({ filesSinceReview: 0 }),
      invoke: {
        id: 'monitor',
        src: 'monitor',
        input: ({ context }) => ({
          trigger: context.trigger ?? 'periodic',
          phase: context.phase,
          plan: context.plan,
          facts: context.facts.slice(-20),
          rounds_used: context.facts.length,
          budget: context.budget,
        }),
        onDone: { target: 'judgingProgress', actions: assign(({ context, event }) => parseDecision(event.output, context.trigger ?? 'periodic')) },
        onError: { target: 'monitorFailed', actions: assign(({ event }) => ({ decision: undefined, problem: `the monitor failed: ${errorText(event.error)}` })) },
      },
    },
    judgingProgress: {
      always: [
        { guard: 'monitorUnusable', target: 'monitorFailed' },
        { guard: 'finishAllowed', target: 'finished', actions: 'emitMonitor' },
        { guard: 'finishRejected', target: 'executing', actions: ['emitMonitor', 'requireFromDecision', assign(({ context }) => ({ finishRejection: context.decision?.reason }))] },
        {
          guard: 'extend',
          target: 'executing',
          actions: [
            assign(({ context }) => ({
              budget: context.budget + Math.min(context.decision?.extend_by ?? context.settings.extension_rounds, context.settings.extension_rounds),
              extensions: context.extensions + 1,
            })),
            'emitMonitor',
            'requireFromDecision',
          ],
        },
        { guard: 'deny', target: 'executing', actions: ['emitMonitor', 'requireFromDecision'] },
        { guard: 'acceptContinues', target: 'executing', actions: ['emitMonitor', 'requireFromDecision', assign({ sinceMonitor: 0, stop: undefined })] },
        { guard: 'acceptFinishes', target: 'executing', actions: ['emitMonitor', 'requireFromDecision', assign({ sinceMonitor: 0, stop: undefined })] },
        {
          // Rolling phases: the phase is accepted, the committee drafts the next milestone.
          guard: 'acceptNextPhase',
          target: 'planning',
          actions: ['emitMonitor', assign({ attempts: 0, feedback: [], required: undefined })],
        },
        {
          // reject_phase or rethink_plan: the committee replans from the evidence (bounded, like the phases).
          guard: 'replansLeft',
          target: 'planning',
          actions: ['emitMonitor', assign(({ context }) => ({ replans: context.replans + 1, attempts: 0, feedback: [context.decision?.reason ?? 'rethink'], required: undefined }))],
        },
        {
          target: 'blocked',
          actions: [
            'emitMonitor',
            assign(({ context }) => ({
              blockedReasons: [
                context.decision?.reason ?? 'rejected',
                context.phase >= context.settings.max_phases ? `no phases left (max_phases ${context.settings.max_phases})` : `no replans left (${context.settings.max_replans})`,
              ],
            })),
          ],
        },
      ],
    },
    monitorFailed: {
      always: [
        {
          guard: 'writeWork',
          target: 'blocked',
          actions: assign(({ context }) => ({ blockedReasons: [`${context.problem ?? 'the monitor failed'}; write work fails closed`] })),
        },
        // Read-only work fails open, with a warning: the plan as drafted, the finish allowed.
        { guard: 'triggeredByPlan', target: 'executing', actions: ['emitWarning', 'startPhase', 'emitPhaseStarted'] },
        { guard: 'triggeredByFinish', target: 'finished', actions: 'emitWarning' },
        { target: 'executing', actions: ['emitWarning', assign({ sinceMonitor: 0 })] },
      ],
    },
    finished: { type: 'final' },
    blocked: { type: 'final', entry: 'emitBlocked' },
  },
});

export type ScsMachine = typeof scsMachine;
