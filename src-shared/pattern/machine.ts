import { assign, emit, fromPromise, setup } from 'xstate';
import { agree, type Agreement } from './agreement';
import {
  DispatchResult,
  type CallerIdentity,
  type JudgmentCaller,
  type JudgmentRecord,
  type JudgmentVerdict,
  type MemberOutput,
  type PatternMember,
  type PatternOutcome,
  type PatternSettings,
  type PatternStatus,
} from './contracts';
import { answeredIdentity, identityOf, type InlineCaller } from './caller-identity';
import { stepsOf } from './presets';
import { judgmentPrompt, memberPrompt } from './prompt';
import { verifyVerdict } from './verifier';

/**
 * The pattern driver (issue 12, seed 002): route → activate → dispatch → aggregate → judge →
 * verify → terminate, per judged unit (the whole pattern, or each PIPELINE step). Dispatch and the
 * model judges are actors the host provides (each member's proposals cross their own decision
 * boundary there); a human judge is a `waiting` state with nothing running, which the host persists
 * and resumes with HUMAN_ANSWERED or JUDGMENT_EXPIRED, after a restart too. The machine owns every
 * ruling: a rejected output never leaves, iterations stay within the bound, an escalation ends the
 * loop, exhaustion follows its policy, and a verdict that fails verification is asked for once more.
 */

export interface PatternInput {
  settings: PatternSettings;
  task: string;
  /** Prefixes judgment ids, so they are unique across a run (e.g. the workflow node id). */
  id_prefix: string;
}

export interface DispatchInput {
  step: number;
  iteration: number;
  members: PatternMember[];
  prompt: string;
}

export interface JudgeInput {
  /** The id the judgment is recorded under (what a replay finds its recorded answer by). */
  judgment_id: string;
  step: number;
  iteration: number;
  /** A model, a remote A2A agent or a verifier (issue 29); a person's judgment is the `waiting` state instead. */
  caller: InlineCaller;
  /** The human caller this model stands in for after an expiry. */
  fallback_for_human: boolean;
  attempt: number;
  prompt: string;
  output: string;
  outputs: MemberOutput[];
  /** Why the previous answer could not be used, for the judge to correct it. */
  problem?: string;
}

/** A judge's raw answer (validated by the machine, never trusted) and when it was asked and answered. */
export interface JudgeAnswer {
  answer: unknown;
  started_at: string;
  ended_at: string;
  /** Who answered, as the host knows it (the model behind the profile, the agent card it read): kept when it names the same caller. */
  caller?: CallerIdentity;
}

export type PatternEvent =
  | ({ type: 'HUMAN_ANSWERED'; who?: string } & JudgeAnswer)
  | { type: 'JUDGMENT_EXPIRED'; at: string }
  | { type: 'CANCEL'; reason?: string };

/** What the host needs to show while a person judges (the "waiting for you" list). */
export interface WaitingFor {
  judgment_id: string;
  step: number;
  iteration: number;
  prompt: string;
  output: string;
  outputs: MemberOutput[];
  problem?: string;
  expiry_seconds?: number;
}

export type PatternEmitted =
  | { type: 'pattern.iteration_started'; step: number; iteration: number }
  | { type: 'pattern.judgment_recorded'; record: JudgmentRecord }
  | { type: 'pattern.waiting'; waiting: WaitingFor }
  | { type: 'pattern.ended'; outcome: PatternOutcome };

interface Candidate {
  step: number;
  iteration: number;
  output: string;
  outputs: MemberOutput[];
  confidence?: number;
  /** Approvals this candidate got (for best_unapproved). */
  approvals: number;
}

interface Pending extends JudgeAnswer {
  caller: CallerIdentity;
  /** The judge could not answer at all (its call failed). */
  error?: string;
}

export interface PatternContext extends PatternInput {
  steps: PatternMember[][];
  step: number;
  iteration: number;
  iterations: number;
  prompt: string;
  feedback?: string;
  previousOutput?: string;
  candidate?: Candidate;
  /** This step's candidates, for best_unapproved. */
  candidates: Candidate[];
  callerIndex: number;
  attempt: number;
  /** The current human caller expired and its model fallback judges instead. */
  fallback: boolean;
  problem?: string;
  pending?: Pending;
  verdicts: JudgmentVerdict[];
  judgments: JudgmentRecord[];
  agreement?: Agreement;
  result?: { output: string; step: number; iteration: number; approved: boolean };
  status?: PatternStatus;
  reason?: string;
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const callerOf = (ctx: PatternContext): JudgmentCaller | undefined => ctx.settings.judgment.callers[ctx.callerIndex];

/** The caller that judges inline now: a model, an A2A agent, a verifier, or a human caller's model fallback after its expiry. */
function modelCaller(ctx: PatternContext): InlineCaller | undefined {
  const c = callerOf(ctx);
  if (c !== undefined && c.kind !== 'human') return c;
  if (c?.kind === 'human' && ctx.fallback && c.fallback.kind === 'llm') return c.fallback;
  return undefined;
}

/** Unique per call: step, iteration, caller, attempt, and whether a model stands in for an expired person. */
const judgmentId = (ctx: PatternContext): string => `${ctx.id_prefix}:j${ctx.step}.${ctx.iteration}.${ctx.callerIndex}.${ctx.attempt}${ctx.fallback ? 'f' : ''}`;

function judgeInput(ctx: PatternContext): JudgeInput {
  const caller = modelCaller(ctx);
  const c = ctx.candidate;
  if (!caller || !c) throw new Error('asking reached without a model caller or a candidate');
  return {
    judgment_id: judgmentId(ctx),
    step: ctx.step,
    iteration: ctx.iteration,
    caller,
    fallback_for_human: ctx.fallback,
    attempt: ctx.attempt,
    prompt: judgmentPrompt({ feedback: ctx.feedback, output: c.output, iteration: ctx.iteration }),
    output: c.output,
    outputs: c.outputs,
    problem: ctx.problem,
  };
}

/** What a person is asked to judge (also what a model judge would have been sent in their place: issue 31). */
export function waitingFor(ctx: PatternContext): WaitingFor {
  const c = callerOf(ctx);
  return {
    judgment_id: judgmentId(ctx),
    step: ctx.step,
    iteration: ctx.iteration,
    prompt: judgmentPrompt({ feedback: ctx.feedback, output: ctx.candidate?.output ?? '', iteration: ctx.iteration }),
    output: ctx.candidate?.output ?? '',
    outputs: ctx.candidate?.outputs ?? [],
    problem: ctx.problem,
    expiry_seconds: c?.kind === 'human' ? c.expiry_seconds : undefined,
  };
}

/** Verify the pending answer and record the call, usable or not. */
function verifyPending(ctx: PatternContext): Pick<PatternContext, 'judgments' | 'verdicts' | 'problem'> {
  const p = ctx.pending;
  const c = ctx.candidate;
  if (!p || !c) return { judgments: ctx.judgments, verdicts: ctx.verdicts, problem: 'nothing to verify' };
  const result = p.error !== undefined ? { ok: false as const, problem: p.error } : verifyVerdict(p.answer, c, ctx.settings.judgment.verifier, p.caller);
  const record: JudgmentRecord = {
    id: judgmentId(ctx),
    step: ctx.step,
    iteration: ctx.iteration,
    attempt: ctx.attempt,
    caller: p.caller,
    verdict: result.ok ? result.verdict : undefined,
    evidence: result.ok && result.verdict.verdict !== 'escalated' ? result.verdict.evidence : [],
    verification: result.ok ? { ok: true } : { ok: false, problem: result.problem },
    // What the judge said that could not be used is kept (bounded), so a replay says it again.
    ...(!result.ok && p.error === undefined && p.answer !== undefined ? { answer: boundedAnswer(p.answer) } : {}),
    started_at: p.started_at,
    ended_at: p.ended_at,
  };
  return {
    judgments: [...ctx.judgments, record],
    verdicts: result.ok ? [...ctx.verdicts, result.verdict] : ctx.verdicts,
    problem: result.ok ? undefined : result.problem,
  };
}

/** The candidate with the most approvals, the latest on a tie: what best_unapproved returns. */
function best(candidates: readonly Candidate[]): Candidate | undefined {
  return candidates.reduce<Candidate | undefined>((b, c) => (b === undefined || c.approvals >= b.approvals ? c : b), undefined);
}

function outcomeOf(ctx: PatternContext): PatternOutcome {
  return {
    status: ctx.status ?? 'failed',
    result: ctx.result?.output,
    approved: ctx.result?.approved ?? false,
    from: ctx.result ? { step: ctx.result.step, iteration: ctx.result.iteration } : undefined,
    iterations: ctx.iterations,
    judgments: ctx.judgments,
    reason: ctx.reason,
  };
}

export const patternMachine = setup({
  types: {
    context: {} as PatternContext,
    input: {} as PatternInput,
    events: {} as PatternEvent,
    emitted: {} as PatternEmitted,
    output: {} as PatternOutcome,
  },
  actors: {
    // Placeholders: the host provides every effect. Unprovided, they fail closed.
    dispatch: fromPromise<unknown, DispatchInput>(async () => {
      throw new Error('no dispatch actor provided');
    }),
    judge: fromPromise<JudgeAnswer, JudgeInput>(async () => {
      throw new Error('no judge actor provided');
    }),
  },
  guards: {
    candidateValid: ({ context }) => context.candidate !== undefined,
    shouldJudge: ({ context }) => {
      const t = context.settings.judgment.trigger;
      switch (t.kind) {
        case 'always':
          return true;
        case 'below_confidence':
          return context.candidate?.confidence === undefined || context.candidate.confidence < t.threshold;
        case 'every_n':
          return context.iteration % t.n === 0 || context.iteration >= context.settings.max_iterations;
      }
    },
    /** Only below_confidence lets an output through unjudged (every_n judges the last iteration). */
    confidentEnough: ({ context }) => context.settings.judgment.trigger.kind === 'below_confidence',
    callerIsHuman: ({ context }) => callerOf(context)?.kind === 'human' && !context.fallback,
    verified: ({ context }) => context.problem === undefined,
    retryLeft: ({ context }) => context.attempt < 2,
    verificationEscalates: ({ context }) => context.settings.judgment.on_verification_failure === 'retry_then_escalate',
    moreCallers: ({ context }) => context.callerIndex + 1 < context.settings.judgment.callers.length,
    /** An escalation ends the judgment at once: no later caller is asked. */
    callerEscalated: ({ context }) => context.problem === undefined && context.verdicts.at(-1)?.verdict === 'escalated',
    fallbackToModel: ({ context }) => {
      const c = callerOf(context);
      return c?.kind === 'human' && c.fallback.kind === 'llm';
    },
    approved: ({ context }) => context.agreement?.decision === 'approved',
    escalated: ({ context }) => context.agreement?.decision === 'escalated',
    iterationsLeft: ({ context }) => context.iteration < context.settings.max_iterations,
    moreSteps: ({ context }) => context.step + 1 < context.steps.length,
    exhaustFails: ({ context }) => context.settings.on_exhaustion === 'fail',
    exhaustEscalates: ({ context }) => context.settings.on_exhaustion === 'escalate',
  },
  actions: {
    activate: assign(({ context }) => {
      const iteration = context.iteration + 1;
      return {
        iteration,
        iterations: context.iterations + 1,
        prompt: memberPrompt({ task: context.task, iteration, feedback: context.feedback, previous_output: context.previousOutput }),
        candidate: undefined,
        agreement: undefined,
      };
    }),
    emitIterationStarted: emit(({ context }) => ({ type: 'pattern.iteration_started' as const, step: context.step, iteration: context.iteration })),
    startJudgment: assign({ callerIndex: 0, attempt: 1, fallback: false, problem: undefined, pending: undefined, verdicts: [] }),
    verify: assign(({ context }) => verifyPending(context)),
    emitRecorded: emit(({ context }) => {
      const record = context.judgments.at(-1);
      if (!record) throw new Error('no judgment to announce');
      return { type: 'pattern.judgment_recorded' as const, record };
    }),
    emitWaiting: emit(({ context }) => ({ type: 'pattern.waiting' as const, waiting: waitingFor(context) })),
    nextCaller: assign(({ context }) => ({ callerIndex: context.callerIndex + 1, attempt: 1, fallback: false, problem: undefined, pending: undefined })),
    retry: assign(({ context }) => ({ attempt: context.attempt + 1, pending: undefined })),
    decide: assign(({ context }) => {
      const agreement = agree(context.verdicts, context.settings.judgment.agreement);
      const approvals = context.verdicts.filter((v) => v.verdict === 'approved').length;
      const candidate = context.candidate ? { ...context.candidate, approvals } : undefined;
      return { agreement, candidate, candidates: candidate ? [...context.candidates, candidate] : context.candidates };
    }),
    carryFeedback: assign(({ context }) => ({
      feedback: context.agreement?.decision === 'rejected' ? context.agreement.feedback : undefined,
      previousOutput: context.candidate?.output,
    })),
    /** An unjudged iteration (every_n between judgments): the next one builds on its output, with no feedback. */
    carryOutput: assign(({ context }) => ({
      feedback: undefined,
      previousOutput: context.candidate?.output,
      candidates: context.candidate ? [...context.candidates, context.candidate] : context.candidates,
    })),
    keepResult: assign(({ context }) => ({
      result: context.candidate
        ? { output: context.candidate.output, step: context.candidate.step, iteration: context.candidate.iteration, approved: context.agreement?.decision === 'approved' }
        : undefined,
    })),
    /** The approved step's output is the next step's input; the next step starts its own iterations. */
    nextStep: assign(({ context }) => ({
      step: context.step + 1,
      iteration: 0,
      feedback: undefined,
      previousOutput: undefined,
      task: `${context.task}\nPrevious step's output:\n${context.candidate?.output ?? ''}`,
      candidates: [],
    })),
    emitEnded: emit(({ context }) => ({ type: 'pattern.ended' as const, outcome: outcomeOf(context) })),
    cancel: assign(({ event }) => ({ reason: (event as { reason?: string }).reason ?? 'the run was cancelled' })),
  },
}).createMachine({
  id: 'pattern',
  context: ({ input }) => ({
    ...input,
    steps: stepsOf(input.settings),
    step: 0,
    iteration: 0,
    iterations: 0,
    prompt: '',
    candidates: [],
    callerIndex: 0,
    attempt: 1,
    fallback: false,
    verdicts: [],
    judgments: [],
  }),
  initial: 'routing',
  output: ({ context }) => outcomeOf(context),
  on: { CANCEL: { target: '.failed', actions: 'cancel' } },
  states: {
    /** Route: this step's members (stepsOf) are fixed at the start; activate builds the iteration's prompt. */
    routing: { always: { target: 'dispatching', actions: ['activate', 'emitIterationStarted'] } },
    dispatching: {
      invoke: {
        id: 'dispatch',
        src: 'dispatch',
        input: ({ context }) => ({ step: context.step, iteration: context.iteration, members: context.steps[context.step] ?? [], prompt: context.prompt }),
        onDone: {
          target: 'aggregating',
          actions: assign(({ context, event }) => {
            const parsed = DispatchResult.safeParse(event.output);
            const members = new Set((context.steps[context.step] ?? []).map((m) => m.id));
            if (!parsed.success) return { reason: `the members' result was malformed: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
            const stranger = parsed.data.outputs.find((o) => !members.has(o.member_id));
            if (stranger) return { reason: `an output came from "${stranger.member_id}", who was not dispatched in this step` };
            const { outputs, output, confidence } = parsed.data;
            return { candidate: { step: context.step, iteration: context.iteration, output, outputs, confidence, approvals: 0 } };
          }),
        },
        onError: { target: 'failed', actions: assign(({ event }) => ({ reason: `the members failed: ${errorText(event.error)}` })) },
      },
    },
    aggregating: {
      always: [
        { guard: 'candidateValid', target: 'triggering' },
        { target: 'failed' },
      ],
    },
    triggering: {
      always: [
        { guard: 'shouldJudge', target: 'judging', actions: 'startJudgment' },
        { guard: 'confidentEnough', target: 'stepAccepted' },
        // every_n between judgments: never the last iteration (shouldJudge takes that one).
        { target: 'routing', actions: 'carryOutput' },
      ],
    },
    judging: {
      always: [{ guard: 'callerIsHuman', target: 'waiting', actions: 'emitWaiting' }, { target: 'asking' }],
    },
    asking: {
      invoke: {
        id: 'judge',
        src: 'judge',
        input: ({ context }) => judgeInput(context),
        onDone: {
          target: 'verifying',
          actions: assign(({ context, event }) => {
            const caller = modelCaller(context);
            const { caller: told, ...answer } = event.output;
            return { pending: { ...answer, caller: caller ? answeredIdentity(caller, told) : { kind: 'system' as const } } };
          }),
        },
        // A judge that cannot answer is a verification failure: retried once, then the policy.
        onError: {
          target: 'verifying',
          actions: assign(({ context, event }) => {
            const caller = modelCaller(context);
            return { pending: { answer: undefined, started_at: '', ended_at: '', caller: caller ? identityOf(caller) : { kind: 'system' as const }, error: `the judge failed: ${errorText(event.error)}` } };
          }),
        },
      },
    },
    /** A person judges: nothing runs, so the host can persist this snapshot and resume it after a restart. */
    waiting: {
      on: {
        HUMAN_ANSWERED: {
          target: 'verifying',
          actions: assign(({ event }) => ({
            pending: { answer: event.answer, started_at: event.started_at, ended_at: event.ended_at, caller: { kind: 'human' as const, ...(event.who ? { who: event.who } : {}) } },
          })),
        },
        JUDGMENT_EXPIRED: [
          { guard: 'fallbackToModel', target: 'judging', actions: assign({ fallback: true, attempt: 1, problem: undefined }) },
          {
            // No fallback model: the system escalates in the person's place.
            target: 'verifying',
            actions: assign(({ event }) => ({
              pending: { answer: { verdict: 'escalated', reason: 'the human judgment expired unanswered' }, started_at: event.at, ended_at: event.at, caller: { kind: 'system' as const } },
            })),
          },
        ],
      },
    },
    verifying: {
      entry: ['verify', 'emitRecorded'],
      always: [
        { guard: 'callerEscalated', target: 'deciding' },
        { guard: 'verified', target: 'collected' },
        { guard: 'retryLeft', target: 'judging', actions: 'retry' },
        {
          guard: 'verificationEscalates',
          target: 'escalated',
          actions: assign(({ context }) => ({ reason: `the judgment could not be verified: ${context.problem ?? ''}` })),
        },
        { target: 'failed', actions: assign(({ context }) => ({ reason: `the judgment could not be verified: ${context.problem ?? ''}` })) },
      ],
    },
    collected: {
      always: [{ guard: 'moreCallers', target: 'judging', actions: 'nextCaller' }, { target: 'deciding' }],
    },
    deciding: {
      entry: 'decide',
      always: [
        { guard: 'approved', target: 'stepApproved' },
        { guard: 'escalated', target: 'escalated', actions: assign(({ context }) => ({ reason: context.agreement?.decision === 'escalated' ? context.agreement.reason : 'escalated' })) },
        { guard: 'iterationsLeft', target: 'routing', actions: 'carryFeedback' },
        { target: 'exhausted' },
      ],
    },
    stepApproved: {
      always: [
        { guard: 'moreSteps', target: 'routing', actions: 'nextStep' },
        { target: 'approved', actions: 'keepResult' },
      ],
    },
    stepAccepted: {
      always: [
        { guard: 'moreSteps', target: 'routing', actions: 'nextStep' },
        { target: 'accepted', actions: 'keepResult' },
      ],
    },
    exhausted: {
      always: [
        { guard: 'exhaustFails', target: 'failed', actions: assign(({ context }) => ({ reason: `no output was approved in ${context.settings.max_iterations} iteration(s)` })) },
        { guard: 'exhaustEscalates', target: 'escalated', actions: assign(({ context }) => ({ reason: `no output was approved in ${context.settings.max_iterations} iteration(s)` })) },
        {
          target: 'unapproved',
          actions: assign(({ context }) => {
            const b = best(context.candidates);
            return {
              result: b ? { output: b.output, step: b.step, iteration: b.iteration, approved: false } : undefined,
              reason: `no output was approved in ${context.settings.max_iterations} iteration(s); returning the best one, marked unapproved`,
            };
          }),
        },
      ],
    },
    approved: { type: 'final', entry: [assign({ status: 'approved' as const }), 'emitEnded'] },
    accepted: { type: 'final', entry: [assign({ status: 'accepted' as const }), 'emitEnded'] },
    unapproved: { type: 'final', entry: [assign({ status: 'unapproved' as const }), 'emitEnded'] },
    escalated: { type: 'final', entry: [assign({ status: 'escalated' as const }), 'emitEnded'] },
    failed: { type: 'final', entry: [assign({ status: 'failed' as const }), 'emitEnded'] },
  },
});

export type PatternMachine = typeof patternMachine;

/** An unusable answer as kept in its record: as given up to 4,000 characters of JSON, else its text cut there. */
const MAX_KEPT_ANSWER_CHARS = 4_000;
function boundedAnswer(answer: unknown): unknown {
  const text = typeof answer === 'string' ? answer : JSON.stringify(answer) ?? String(answer);
  return text.length <= MAX_KEPT_ANSWER_CHARS ? answer : text.slice(0, MAX_KEPT_ANSWER_CHARS);
}
