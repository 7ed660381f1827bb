import { assign, emit, fromPromise, setup } from 'xstate';
import type { ControlDecision, Decision, ToolCallDecision } from '../contracts/decision';
import type { ModelReply } from '../contracts/model';
import type { Proposer, RoundOutcome, RoundRecord, Selector, ToolExecution, VerdictAttempt } from '../contracts/round';
import type { SupervisionSpec } from '../contracts/spec';
import type { OfferedTool, ToolSnapshot } from '../contracts/tool-snapshot';
import type { RunEventPayload } from '../contracts/events';
import { decideReview, type ReviewDecision } from '../policy/review-policy';
import { authorizeDecision, type Authorization, type AuthorizationFacts } from './authorization';
import { finalAnswerNeedsReview, type ClaimFacts } from './final-answer-check';
import { candidateFromValue, parseCandidate, type ParsedCandidate } from './parse-candidate';
import { describeIssues, validateCandidate, type DecisionConstraints, type ValidatedDecision, type ValidationResult } from './validation';
import { parseVerdict } from './verdict';
import { MASK } from '../util/mask';
import { maskSensitiveMarks, traceProvenance, untrustedMarks, type ArgumentProvenance, type ProvenanceFacts } from './provenance';

/**
 * The decision boundary for one model round (DESIGN.md §3), in its strict order:
 * propose → validate → review policy → (teacher verdict → validate replacement) → select →
 * authorize → commit → execute/deliver → record. Effects are actors the host provides; the
 * machine owns every ruling, so a buggy host actor cannot skip a step.
 */

export type BoundarySupervision = Pick<SupervisionSpec, 'enabled' | 'phase' | 'rules' | 'max_verdict_attempts' | 'max_repair_rounds'>;

export interface BoundaryInput {
  round: number;
  proposer: Proposer;
  snapshot: ToolSnapshot;
  supervision: BoundarySupervision;
  constraints?: DecisionConstraints;
  /** The seeded sampler drew this round for an audit review (policy/sampler.ts). */
  sampled?: boolean;
  /**
   * A decision a person already approved (an escalation or a confirmation they answered): the round
   * skips proposing and review, but the decision still passes validation against this round's
   * snapshot, authorization, commit and the rest, like any other.
   */
  preselected?: { decision: Decision; intervention_id: string; confirmed: boolean };
  /** What this run refused and ran so far: a final answer after a refusal is reviewed against it. */
  claims?: ClaimFacts;
  /** What a person told this round's proposer (their rejection of the last round, their reply): recorded on round.started. */
  told?: string;
  /** The person's texts and the run's earlier tool results: where a tool call's argument values came from (provenance.ts). */
  provenanceFacts?: ProvenanceFacts;
}

export interface ProposeInput {
  round: number;
  proposer: Proposer;
  snapshot: ToolSnapshot;
  /** On a repair: what was wrong with the previous candidate, for the model to fix. */
  feedback?: string;
  /** 0 for the first proposal, then 1, 2… for repairs. */
  attempt: number;
}
export interface ReviewInput {
  round: number;
  snapshot: ToolSnapshot;
  reply: ModelReply;
  parsed: ParsedCandidate;
  validation: ValidationResult;
  review: ReviewDecision;
  attempt: number;
  /** Why the previous verdict could not be used, so the teacher can correct it. */
  previous_problem?: string;
  /** A final answer after a refusal: what was refused and what actually ran, to check its claims. */
  claims?: ClaimFacts;
  /** Values of the candidate's arguments that came from earlier tool results: the teacher's card shows them. */
  provenance?: ArgumentProvenance[];
}
export interface AuthorizeInput {
  round: number;
  decision: Decision;
  tool?: OfferedTool;
  /** The person already confirmed this very decision (a preselected round). */
  preconfirmed: boolean;
  /** Where the selected call's values came from, when it is the proposer's own candidate (a confirmation shows it). */
  provenance?: ArgumentProvenance[];
}
export interface CommitInput {
  round: number;
  source: Selector;
  decision: Decision;
}
export interface ExecuteInput {
  round: number;
  decision: ToolCallDecision;
  tool: OfferedTool;
  idempotency_key: string;
  /** The key was executed before and its result kept: the host gives that result again and calls nothing. */
  recorded_result?: true;
}
export interface DeliverInput {
  round: number;
  decision: ControlDecision;
}

interface Selected {
  source: Selector;
  decision: Decision;
  tool?: OfferedTool;
  /** Chosen by a teacher verdict, or proposed by the teacher itself. */
  reviewed: boolean;
}

interface Evaluation {
  attempt: VerdictAttempt;
  replacement?: ValidatedDecision;
}

/** A candidate the student repaired within the round: what it was and why it failed. */
export interface RepairedCandidate {
  reply: ModelReply;
  parsed: ParsedCandidate;
  validation: ValidationResult;
}

export interface BoundaryContext extends BoundaryInput {
  repairs: RepairedCandidate[];
  reply?: ModelReply;
  parsed?: ParsedCandidate;
  validated?: ValidatedDecision;
  review?: ReviewDecision;
  provenance?: ArgumentProvenance[];
  attempts: VerdictAttempt[];
  evaluation?: Evaluation;
  selected?: Selected;
  authorization?: Authorization;
  historyIndex?: number;
  execution?: ToolExecution;
  outcome?: RoundOutcome;
  reason?: string;
  message?: string;
}

export type BoundaryEvent = { type: 'CANCEL'; reason?: string };
export type BoundaryEmitted = RunEventPayload;

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function evaluateVerdict(ctx: BoundaryContext, reply: ModelReply): Evaluation {
  const attemptNo = ctx.attempts.length + 1;
  const parsed = parseVerdict(reply);
  if (!parsed.ok) return { attempt: { attempt: attemptNo, reply, usable: false, problem: `malformed verdict: ${parsed.error}` } };
  const verdict = parsed.verdict;
  switch (verdict.verdict) {
    case 'accept':
      if (!ctx.validated?.result.ok) {
        return {
          attempt: {
            attempt: attemptNo,
            reply,
            verdict,
            usable: false,
            problem: `accept is impossible: the candidate failed validation (${describeIssues(ctx.validated?.result.issues ?? [])})`,
          },
        };
      }
      return { attempt: { attempt: attemptNo, reply, verdict, usable: true } };
    case 'replace': {
      // I3: exactly the validation a student candidate gets.
      const replacement = validateCandidate(candidateFromValue(verdict.replacement), ctx.snapshot, ctx.constraints);
      return {
        replacement,
        attempt: {
          attempt: attemptNo,
          reply,
          verdict,
          replacement_validation: replacement.result,
          usable: replacement.result.ok,
          problem: replacement.result.ok ? undefined : `replacement failed validation: ${describeIssues(replacement.result.issues)}`,
        },
      };
    }
    case 'block':
    case 'escalate':
      return { attempt: { attempt: attemptNo, reply, verdict, usable: true } };
  }
}

export function toRoundRecord(ctx: BoundaryContext): RoundRecord {
  return {
    round: ctx.round,
    proposer: ctx.proposer,
    candidate: { reply: ctx.reply, parsed: ctx.parsed },
    repairs: ctx.repairs,
    validation: ctx.validated?.result,
    review: ctx.review,
    ...(ctx.provenance !== undefined && ctx.provenance.length > 0 ? { provenance: ctx.provenance } : {}),
    verdicts: ctx.attempts,
    verdict: [...ctx.attempts].reverse().find((a) => a.usable && a.verdict)?.verdict,
    selected: ctx.selected ? { source: ctx.selected.source, decision: ctx.selected.decision } : undefined,
    authorization: ctx.authorization,
    history_index: ctx.historyIndex,
    execution: ctx.execution,
    intervention_id: ctx.preselected?.intervention_id,
    outcome: ctx.outcome ?? 'failed',
    reason: ctx.reason,
    message: ctx.message,
  };
}

/** The host's pause of a call for a server's input request (src-main/mcp/input-pause.ts), known by its mark. */
function inputRequired(error: unknown): boolean {
  return error !== null && typeof error === 'object' && (error as { inputRequired?: unknown }).inputRequired === true;
}

/** The execute step's input, present only for a selected, authorized tool call with its key. */
function executeInputOf(ctx: BoundaryContext): ExecuteInput | undefined {
  const selected = ctx.selected;
  if (selected?.decision.decision_type !== 'tool_call' || !selected.tool) return undefined;
  if (!ctx.authorization?.ok || !ctx.authorization.idempotency_key) return undefined;
  return { round: ctx.round, decision: selected.decision, tool: selected.tool, idempotency_key: ctx.authorization.idempotency_key, ...(ctx.authorization.recorded_result ? { recorded_result: true as const } : {}) };
}

const lastAttempt = (ctx: BoundaryContext): VerdictAttempt | undefined => ctx.evaluation?.attempt;

export const boundaryMachine = setup({
  types: {
    context: {} as BoundaryContext,
    input: {} as BoundaryInput,
    events: {} as BoundaryEvent,
    emitted: {} as BoundaryEmitted,
    output: {} as RoundRecord,
  },
  actors: {
    // Placeholders: the host must provide every effect. Unprovided, they fail closed.
    propose: fromPromise<ModelReply, ProposeInput>(async () => {
      throw new Error('no propose actor provided');
    }),
    review: fromPromise<ModelReply, ReviewInput>(async () => {
      throw new Error('no review actor provided');
    }),
    authorize: fromPromise<AuthorizationFacts, AuthorizeInput>(async () => {
      throw new Error('no authorize actor provided');
    }),
    commit: fromPromise<{ history_index: number }, CommitInput>(async () => {
      throw new Error('no commit actor provided');
    }),
    execute: fromPromise<ToolExecution, ExecuteInput>(async () => {
      throw new Error('no execute actor provided');
    }),
    deliver: fromPromise<void, DeliverInput>(async () => {
      throw new Error('no deliver actor provided');
    }),
  },
  guards: {
    // The host's pause of a call for a server's input request (issue 30): the round waits for a person.
    callPausedForInput: ({ event }) => 'error' in event && inputRequired(event.error),
    reviewRequired: ({ context }) => context.review?.required === true,
    hasPreselection: ({ context }) => context.preselected !== undefined,
    candidateValid: ({ context }) => context.validated?.result.ok === true,
    repairAvailable: ({ context }) =>
      context.proposer === 'student' &&
      context.validated?.result.ok === false &&
      context.repairs.length < context.supervision.max_repair_rounds,
    verdictUnusableWithRetriesLeft: ({ context }) =>
      lastAttempt(context)?.usable === false && context.attempts.length < context.supervision.max_verdict_attempts,
    verdictUnusable: ({ context }) => lastAttempt(context)?.usable === false,
    verdictAccept: ({ context }) => lastAttempt(context)?.verdict?.verdict === 'accept',
    verdictReplace: ({ context }) => lastAttempt(context)?.verdict?.verdict === 'replace',
    verdictBlock: ({ context }) => lastAttempt(context)?.verdict?.verdict === 'block',
    authorized: ({ context }) => context.authorization?.ok === true,
    selectedIsToolCall: ({ context }) => context.selected?.decision.decision_type === 'tool_call',
    readyToExecute: ({ context }) => executeInputOf(context) !== undefined,
  },
  actions: {
    emitRoundStarted: emit(({ context }) => ({ type: 'round.started' as const, round: context.round, proposer: context.proposer, ...(context.told !== undefined ? { told: context.told } : {}) })),
    validate: assign(({ context }) => {
      const parsed = context.parsed ?? { raw: undefined, tool_call_count: 0, parse_error: 'no candidate' };
      return { validated: validateCandidate(parsed, context.snapshot, context.constraints) };
    }),
    decideReview: assign(({ context }) => {
      const validated = context.validated;
      const ok = validated?.result.ok === true;
      const decision = ok ? validated?.decision : undefined;
      const provenance =
        decision?.decision_type === 'tool_call' && context.provenanceFacts
          ? maskSensitiveMarks(traceProvenance(decision.arguments, context.provenanceFacts), validated?.tool?.effect.sensitive_arguments ?? [], MASK)
          : undefined;
      return {
        provenance,
        review: decideReview({
          supervision: context.supervision,
          validationOk: ok,
          decision: ok ? validated?.decision : undefined,
          effect: ok ? validated?.tool?.effect.effect : undefined,
          proposer: context.proposer,
          sampled: context.sampled === true,
          afterRefusal: ok && finalAnswerNeedsReview(context.claims, validated?.decision),
          untrusted: provenance ? untrustedMarks(provenance) : [],
        }),
      };
    }),
    emitValidated: emit(({ context }) => ({
      type: 'candidate.validated' as const,
      round: context.round,
      attempt: context.repairs.length,
      validation: context.validated?.result ?? { ok: false, issues: [] },
    })),
    emitReviewDecided: emit(({ context }) => ({
      type: 'review.decided' as const,
      round: context.round,
      review: context.review ?? { required: false, rule: 'not_required' as const },
    })),
    selectCandidate: assign(({ context }) => ({
      selected: context.validated?.decision
        ? {
            source: context.proposer,
            decision: context.validated.decision,
            tool: context.validated.tool,
            reviewed: context.proposer === 'teacher' || context.attempts.some((a) => a.usable && a.verdict?.verdict === 'accept'),
          }
        : undefined,
    })),
    selectReplacement: assign(({ context }) => ({
      selected: context.evaluation?.replacement?.decision
        ? { source: 'teacher' as const, decision: context.evaluation.replacement.decision, tool: context.evaluation.replacement.tool, reviewed: true }
        : undefined,
    })),
    emitSelected: emit(({ context }) => ({
      type: 'decision.selected' as const,
      round: context.round,
      source: context.selected?.source ?? context.proposer,
      decision: context.selected?.decision ?? { decision_type: 'complete' as const, output: '' },
    })),
    emitVerdict: emit(({ context }) => ({
      type: 'verdict.received' as const,
      round: context.round,
      attempt: lastAttempt(context) ?? { attempt: 0, usable: false },
    })),
    emitAuthorized: emit(({ context }) => ({
      type: 'decision.authorized' as const,
      round: context.round,
      authorization: context.authorization ?? { ok: false, reason: 'missing_idempotency_key' as const, message: 'no authorization' },
    })),
    /** A proposal (attempt 0) or a repair (attempt ≥ 1) arrived: the candidate is now in context. */
    emitProposed: emit(({ context }) => ({
      type: 'candidate.proposed' as const,
      round: context.round,
      attempt: context.repairs.length,
      reply: context.reply ?? { text: '', tool_calls: [], model: 'unknown' },
      parsed: context.parsed ?? { raw: undefined, tool_call_count: 0 },
    })),
    recordProposeError: assign(({ context, event }) => ({
      reason: `${context.proposer}_error`,
      message: `the ${context.proposer} model failed${context.repairs.length > 0 || context.validated ? ' while repairing its decision' : ''}: ${errorMessage((event as { error?: unknown }).error)}`,
    })),
    // The host may say why it stopped the round (a model that cannot be used): that is its message.
    cancel: assign(({ event }) => ({ reason: 'cancelled', message: (event as { reason?: string }).reason ?? 'the run was cancelled' })),
    emitRoundCompleted: emit(({ context }) => ({ type: 'round.completed' as const, round: context.round, record: toRoundRecord(context) })),
  },
}).createMachine({
  id: 'decisionBoundary',
  context: ({ input }) => ({ ...input, attempts: [], repairs: [] }),
  initial: 'starting',
  output: ({ context }) => toRoundRecord(context),
  states: {
    starting: {
      entry: 'emitRoundStarted',
      always: [{ guard: 'hasPreselection', target: 'checkingPreselected' }, { target: 'proposing' }],
    },
    checkingPreselected: {
      // A person approved this decision: no model call and no review, the same validation.
      entry: [
        assign(({ context }) => ({
          validated: validateCandidate(candidateFromValue(context.preselected?.decision), context.snapshot, context.constraints),
          review: { required: false, rule: 'human_decided' as const },
        })),
        'emitValidated',
        'emitReviewDecided',
      ],
      always: [
        {
          guard: 'candidateValid',
          target: 'authorizing',
          actions: [
            assign(({ context }) => ({
              selected: context.validated?.decision
                ? { source: 'human' as const, decision: context.validated.decision, tool: context.validated.tool, reviewed: true }
                : undefined,
            })),
            'emitSelected',
          ],
        },
        {
          target: 'failed',
          actions: assign(({ context }) => ({
            reason: 'approved_decision_invalid',
            message: `the decision you approved no longer passes validation: ${describeIssues(context.validated?.result.issues ?? [])}`,
          })),
        },
      ],
    },
    proposing: {
      on: { CANCEL: { target: 'failed', actions: 'cancel' } },
      invoke: {
        id: 'propose',
        src: 'propose',
        input: ({ context }) => ({ round: context.round, proposer: context.proposer, snapshot: context.snapshot, attempt: 0 }),
        onDone: {
          target: 'validating',
          actions: [assign(({ event }) => ({ reply: event.output, parsed: parseCandidate(event.output) })), 'emitProposed'],
        },
        onError: { target: 'failed', actions: 'recordProposeError' },
      },
    },
    validating: {
      entry: ['validate', 'emitValidated'],
      always: [{ guard: 'repairAvailable', target: 'repairing' }, { target: 'routing' }],
    },
    repairing: {
      // The student fixes its own invalid candidate (bounded), before any review.
      on: { CANCEL: { target: 'failed', actions: 'cancel' } },
      invoke: {
        // Same effect as proposing, so the host (and its tests) see one `propose` actor.
        id: 'propose',
        src: 'propose',
        input: ({ context }) => ({
          round: context.round,
          proposer: context.proposer,
          snapshot: context.snapshot,
          attempt: context.repairs.length + 1,
          feedback: `Your decision was rejected by validation: ${describeIssues(context.validated?.result.issues ?? [])}. Return exactly one valid decision.`,
        }),
        onDone: {
          target: 'validating',
          actions: [
            assign(({ context, event }) => ({
              repairs: [
                ...context.repairs,
                {
                  reply: context.reply ?? { text: '', tool_calls: [], model: 'unknown' },
                  parsed: context.parsed ?? { raw: undefined, tool_call_count: 0 },
                  validation: context.validated?.result ?? { ok: false, issues: [] },
                },
              ],
              reply: event.output,
              parsed: parseCandidate(event.output),
            })),
            'emitProposed',
          ],
        },
        onError: { target: 'failed', actions: 'recordProposeError' },
      },
    },
    routing: {
      entry: ['decideReview', 'emitReviewDecided'],
      always: [
        { guard: 'reviewRequired', target: 'reviewing' },
        { guard: 'candidateValid', target: 'authorizing', actions: ['selectCandidate', 'emitSelected'] },
        {
          target: 'failed',
          actions: assign(({ context }) => ({
            reason: 'invalid_candidate',
            message: `the ${context.proposer}'s decision failed validation: ${describeIssues(context.validated?.result.issues ?? [])}`,
          })),
        },
      ],
    },
    reviewing: {
      on: { CANCEL: { target: 'failed', actions: 'cancel' } },
      invoke: {
        id: 'review',
        src: 'review',
        input: ({ context }) => ({
          round: context.round,
          snapshot: context.snapshot,
          reply: context.reply ?? { text: '', tool_calls: [], model: 'unknown' },
          parsed: context.parsed ?? { raw: undefined, tool_call_count: 0 },
          validation: context.validated?.result ?? { ok: false, issues: [] },
          review: context.review ?? { required: true, rule: 'review_all' as const },
          attempt: context.attempts.length + 1,
          previous_problem: context.attempts.at(-1)?.problem,
          ...(finalAnswerNeedsReview(context.claims, context.validated?.decision) ? { claims: context.claims } : {}),
          ...(context.provenance !== undefined && context.provenance.length > 0 ? { provenance: context.provenance } : {}),
        }),
        onDone: {
          target: 'judging',
          actions: assign(({ context, event }) => {
            const evaluation = evaluateVerdict(context, event.output);
            return { evaluation, attempts: [...context.attempts, evaluation.attempt] };
          }),
        },
        onError: {
          target: 'judging',
          actions: assign(({ context, event }) => {
            const attempt: VerdictAttempt = {
              attempt: context.attempts.length + 1,
              usable: false,
              problem: `the teacher model failed: ${errorMessage(event.error)}`,
            };
            return { evaluation: { attempt }, attempts: [...context.attempts, attempt] };
          }),
        },
      },
    },
    judging: {
      entry: 'emitVerdict',
      always: [
        { guard: 'verdictUnusableWithRetriesLeft', target: 'reviewing' },
        {
          guard: 'verdictUnusable',
          target: 'blocked',
          actions: assign(({ context }) => ({
            reason: 'verdict_unusable',
            message: `no usable teacher verdict after ${context.attempts.length} attempt(s): ${context.attempts.at(-1)?.problem ?? ''}`,
          })),
        },
        { guard: 'verdictAccept', target: 'authorizing', actions: ['selectCandidate', 'emitSelected'] },
        { guard: 'verdictReplace', target: 'authorizing', actions: ['selectReplacement', 'emitSelected'] },
        {
          guard: 'verdictBlock',
          target: 'blocked',
          actions: assign(({ context }) => ({ reason: 'verdict_block', message: lastAttempt(context)?.verdict?.explanation })),
        },
        {
          target: 'escalated',
          actions: assign(({ context }) => ({ reason: 'verdict_escalate', message: lastAttempt(context)?.verdict?.explanation })),
        },
      ],
    },
    authorizing: {
      on: { CANCEL: { target: 'failed', actions: 'cancel' } },
      invoke: {
        id: 'authorize',
        src: 'authorize',
        input: ({ context }) => ({
          round: context.round,
          decision: context.selected?.decision ?? { decision_type: 'complete' as const, output: '' },
          tool: context.selected?.tool,
          preconfirmed: context.preselected?.confirmed === true,
          ...(context.selected?.source === context.proposer && context.provenance !== undefined && context.provenance.length > 0 ? { provenance: context.provenance } : {}),
        }),
        onDone: {
          target: 'checkingAuthorization',
          actions: assign(({ context, event }) => ({
            authorization: context.selected
              ? authorizeDecision({
                  decision: context.selected.decision,
                  tool: context.selected.tool,
                  reviewed: context.selected.reviewed,
                  facts: event.output,
                })
              : undefined,
          })),
        },
        onError: {
          target: 'failed',
          actions: assign(({ event }) => ({ reason: 'authorization_error', message: `authorization failed: ${errorMessage(event.error)}` })),
        },
      },
    },
    checkingAuthorization: {
      entry: 'emitAuthorized',
      always: [
        { guard: 'authorized', target: 'committing' },
        {
          target: 'blocked',
          actions: assign(({ context }) => ({
            reason: context.authorization?.ok === false ? context.authorization.reason : 'not_authorized',
            message: context.authorization?.ok === false ? context.authorization.message : 'not authorized',
          })),
        },
      ],
    },
    committing: {
      invoke: {
        id: 'commit',
        src: 'commit',
        input: ({ context }) => ({
          round: context.round,
          source: context.selected?.source ?? context.proposer,
          decision: context.selected?.decision ?? { decision_type: 'complete' as const, output: '' },
        }),
        onDone: {
          target: 'dispatching',
          actions: [
            assign(({ event }) => ({ historyIndex: event.output.history_index })),
            emit(({ context }) => ({
              type: 'decision.committed' as const,
              round: context.round,
              history_index: context.historyIndex ?? 0,
              decision: context.selected?.decision ?? { decision_type: 'complete' as const, output: '' },
            })),
          ],
        },
        onError: {
          target: 'failed',
          actions: assign(({ event }) => ({ reason: 'commit_error', message: `could not commit to history: ${errorMessage(event.error)}` })),
        },
      },
    },
    dispatching: {
      always: [
        { guard: 'readyToExecute', target: 'executing' },
        {
          // Unreachable through the steps above; a tool call without full authority fails closed.
          guard: 'selectedIsToolCall',
          target: 'failed',
          actions: assign({ reason: 'not_executable', message: 'a tool call reached execution without authority' }),
        },
        { target: 'delivering' },
      ],
    },
    executing: {
      invoke: {
        id: 'execute',
        src: 'execute',
        input: ({ context }) => {
          const input = executeInputOf(context);
          if (!input) throw new Error('execute reached without a selected, authorized tool call');
          return input;
        },
        onDone: {
          target: 'executed',
          actions: [
            assign(({ event }) => ({ execution: event.output })),
            emit(({ context, event }) => ({ type: 'tool.executed' as const, round: context.round, execution: event.output })),
          ],
        },
        onError: [
          {
            // A 2026-07-28 server asked for input mid-call and the run waits for a person (issue 30):
            // the call is paused, not failed; the round ends with the question for the person.
            guard: 'callPausedForInput',
            target: 'escalated',
            actions: assign(({ event }) => ({ reason: 'input_required', message: errorMessage(event.error) })),
          },
          {
            target: 'failed',
            actions: assign(({ event }) => ({ reason: 'tool_error', message: `the tool call failed: ${errorMessage(event.error)}` })),
          },
        ],
      },
    },
    delivering: {
      invoke: {
        id: 'deliver',
        src: 'deliver',
        input: ({ context }) => ({
          round: context.round,
          decision: (context.selected?.decision ?? { decision_type: 'complete', output: '' }) as ControlDecision,
        }),
        onDone: {
          target: 'delivered',
          actions: emit(({ context }) => ({
            type: 'response.delivered' as const,
            round: context.round,
            decision: context.selected?.decision ?? { decision_type: 'complete' as const, output: '' },
          })),
        },
        onError: {
          target: 'failed',
          actions: assign(({ event }) => ({ reason: 'delivery_error', message: `delivery failed: ${errorMessage(event.error)}` })),
        },
      },
    },
    executed: { type: 'final', entry: [assign({ outcome: 'executed' }), 'emitRoundCompleted'] },
    delivered: { type: 'final', entry: [assign({ outcome: 'delivered' }), 'emitRoundCompleted'] },
    blocked: { type: 'final', entry: [assign({ outcome: 'blocked' }), 'emitRoundCompleted'] },
    escalated: { type: 'final', entry: [assign({ outcome: 'escalated' }), 'emitRoundCompleted'] },
    failed: { type: 'final', entry: [assign({ outcome: 'failed' }), 'emitRoundCompleted'] },
  },
});

export type BoundaryMachine = typeof boundaryMachine;
