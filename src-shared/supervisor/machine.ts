import { assign, fromPromise, setup } from 'xstate';
import { MALFORMED_ANSWER_CHARS, MAX_REPAIR_ROUNDS, Verdict, type DecidedBy, type Escalation, type MalformedAnswer, type SupervisorAction, type SupervisorSettings, type SupervisorVerdict } from './contracts';
import { estimatePromptTokens, reserveTurn, type Reservation, type SupervisorIdentity } from './cost';
import { recordVerdict, retriesExhausted, stickyVerdictFor, type MemoryEntry, type SupervisorLedger } from './ledger';

/**
 * One escalation's decision (seed 004 design §5–§6), in its order:
 * escalated → (sticky? → applied) → bounds → reserve the turn's cost → deciding (the supervisor,
 * a model or a person, is an actor the host provides; a timeout aborts it) → enforce the allowed
 * set → (substitute: validate, up to 3 repair turns) → applied. The machine owns every ruling; a
 * supervisor that answers outside the allowed set, or with no verdict at all, gets `fail`, decided
 * by the kernel; its unusable answer stays on the verdict (`malformed`) for the report.
 */

export interface SupervisorInput {
  escalation: Escalation;
  settings: SupervisorSettings;
  ledger: SupervisorLedger;
  who: SupervisorIdentity;
}

export interface DecideInput {
  escalation: Escalation;
  /** The actions the supervisor may choose from (its verdict schema is built from them). */
  allowed: SupervisorAction[];
  /** 1 for the first turn, then 2… for substitute repairs. */
  turn: number;
  /** On a repair: why the previous substitute was refused. */
  feedback?: string;
  /** The supervisor's earlier decisions in this run, oldest first (the ledger's bounded memory). */
  memory?: readonly MemoryEntry[];
}
/**
 * `verdict` is whatever the supervisor said: the kernel parses it. `cost_usd` when the provider
 * reported it. `failure`: the supervisor could not answer (a model call failed, or was cut at its
 * output bound) — the default verdict applies, in these words, and the turn costs `cost_usd`.
 */
export interface DecideOutput {
  verdict: unknown;
  cost_usd?: number;
  failure?: string;
  /** The supervisor's repair rounds ran out on an answer no usable verdict could be read from: that answer. */
  malformed?: MalformedAnswer;
}
export interface ValidateInput {
  escalation: Escalation;
  value: Record<string, unknown>;
}
export type SubstituteCheck = { ok: true } | { ok: false; problems: string };

export interface SupervisorContext extends SupervisorInput {
  turns: number;
  cost_usd: number;
  reservation?: Reservation;
  proposed?: Verdict;
  /** The last answer, when it was no usable verdict (what the applied `fail` was decided over). */
  malformed?: MalformedAnswer;
  feedback?: string;
  applied?: SupervisorVerdict;
}

export interface SupervisorOutput {
  verdict: SupervisorVerdict;
  ledger: SupervisorLedger;
}

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function applied(ctx: SupervisorContext, verdict: Verdict, decidedBy: DecidedBy): { applied: SupervisorVerdict } {
  return { applied: { escalation_id: ctx.escalation.id, verdict, decided_by: decidedBy, turns: ctx.turns, cost_usd: ctx.cost_usd } };
}
const fail = (ctx: SupervisorContext, decidedBy: DecidedBy, reason: string) => applied(ctx, { action: 'fail', reason }, decidedBy);

/** `fail` over an answer that could not be used: the answer is kept on the verdict. */
function failOver(ctx: SupervisorContext, reason: string): { applied: SupervisorVerdict } {
  const out = fail(ctx, 'kernel', reason);
  return ctx.malformed ? { applied: { ...out.applied, malformed: ctx.malformed } } : out;
}

/** What a supervisor said that the Verdict schema refused, as text (a generic supervisor gave no `malformed` of its own). */
function refusedAnswer(verdict: unknown): MalformedAnswer {
  let text: string;
  try {
    text = typeof verdict === 'string' ? verdict : (JSON.stringify(verdict) ?? String(verdict));
  } catch {
    text = String(verdict);
  }
  const answer = text.length <= MALFORMED_ANSWER_CHARS ? text : `${text.slice(0, MALFORMED_ANSWER_CHARS - 1)}…`;
  return { problem: 'the verdict does not match the verdict schema', answer, repairs: 0 };
}

/** In words, for the verdict's reason: what the supervisor's unusable answers were and what happens. */
function malformedReason(ctx: SupervisorContext): string {
  const m = ctx.malformed;
  const answers = m && m.repairs > 0 ? `in ${m.repairs + 1} answers (${m.repairs} repair rounds)` : 'in its answer';
  return `the supervisor gave no usable verdict ${answers}, so the node fails as it would have without supervision`;
}

function timeoutOf(ctx: SupervisorContext): number | undefined {
  return ctx.settings.who.decision_timeout_ms;
}

/** What a turn costs once it ends: the provider's figure when reported, else the whole reservation. */
function turnCost(ctx: SupervisorContext, reported?: number): number {
  const reserved = ctx.reservation?.ok ? ctx.reservation.usd : 0;
  return ctx.cost_usd + (typeof reported === 'number' && Number.isFinite(reported) && reported >= 0 ? reported : reserved);
}

function toOutput(ctx: SupervisorContext): SupervisorOutput {
  const verdict = ctx.applied ?? { escalation_id: ctx.escalation.id, verdict: { action: 'fail' as const, reason: 'no verdict' }, decided_by: 'kernel' as const, turns: ctx.turns, cost_usd: ctx.cost_usd };
  return { verdict, ledger: recordVerdict(ctx.ledger, ctx.escalation, verdict) };
}

/** Never fires without a timeout (a person with none waits until answered or stopped). */
const NO_TIMEOUT_MS = 2_147_483_647;

export const supervisorMachine = setup({
  types: {
    context: {} as SupervisorContext,
    input: {} as SupervisorInput,
    output: {} as SupervisorOutput,
  },
  actors: {
    // Placeholders: the host provides the supervisor and the validator. Unprovided, they fail closed.
    decide: fromPromise<DecideOutput, DecideInput>(async () => {
      throw new Error('no supervisor provided');
    }),
    validateSubstitute: fromPromise<SubstituteCheck, ValidateInput>(async () => {
      throw new Error('no substitute validator provided');
    }),
  },
  delays: {
    decisionTimeout: ({ context }) => timeoutOf(context) ?? NO_TIMEOUT_MS,
  },
  guards: {
    supervisionOff: ({ context }) => !context.settings.enabled,
    stickyApplies: ({ context }) => stickyVerdictFor(context.ledger, context.escalation) !== undefined,
    onlyFailAllowed: ({ context }) => context.escalation.allowed_actions.every((a) => a === 'fail'),
    decisionsExhausted: ({ context }) => context.ledger.decisions >= context.settings.max_decisions,
    reservationRefused: ({ context }) => context.reservation?.ok !== true,
    hasTimeout: ({ context }) => timeoutOf(context) !== undefined,
    decideFailed: ({ event }) => typeof (event as { output?: DecideOutput }).output?.failure === 'string',
    proposalMalformed: ({ context }) => context.proposed === undefined,
    proposalOutsideAllowed: ({ context }) => context.proposed !== undefined && !context.escalation.allowed_actions.includes(context.proposed.action),
    retryOverBound: ({ context }) => context.proposed?.action === 'retry' && retriesExhausted(context.ledger, context.settings, context.escalation.invocation_key),
    proposalIsSubstitute: ({ context }) => context.proposed?.action === 'substitute',
    substituteValid: ({ event }) => (event as { output?: SubstituteCheck }).output?.ok === true,
    repairLeft: ({ context }) => context.turns <= MAX_REPAIR_ROUNDS,
  },
  actions: {
    reserve: assign(({ context }) => ({
      reservation: reserveTurn(
        context.settings,
        context.who,
        context.ledger.spent_usd + context.cost_usd,
        estimatePromptTokens(JSON.stringify(context.escalation).length + (context.feedback?.length ?? 0) + JSON.stringify(context.ledger.memory).length),
      ),
    })),
    applyProposal: assign(({ context }) => (context.proposed ? applied(context, context.proposed, 'agent') : {})),
  },
}).createMachine({
  id: 'workflowSupervisor',
  context: ({ input }) => ({ ...input, turns: 0, cost_usd: 0 }),
  initial: 'escalated',
  output: ({ context }) => toOutput(context),
  states: {
    escalated: {
      always: [
        { guard: 'supervisionOff', target: 'applied', actions: assign(({ context }) => fail(context, 'default', 'supervision is off for this run')) },
        {
          guard: 'stickyApplies',
          target: 'applied',
          actions: assign(({ context }) => {
            const action = stickyVerdictFor(context.ledger, context.escalation) ?? 'fail';
            return applied(context, { action, reason: `the supervisor already chose ${action} for this failure of ${context.escalation.node}` }, 'sticky');
          }),
        },
        { guard: 'onlyFailAllowed', target: 'applied', actions: assign(({ context }) => fail(context, 'kernel', 'fail is the only action allowed here')) },
        {
          guard: 'decisionsExhausted',
          target: 'applied',
          actions: assign(({ context }) => fail(context, 'bounds', `the run used all ${context.settings.max_decisions} supervisor decisions`)),
        },
        { target: 'reserving' },
      ],
    },
    reserving: {
      entry: 'reserve',
      always: [
        {
          guard: 'reservationRefused',
          target: 'applied',
          actions: assign(({ context }) => fail(context, 'bounds', context.reservation?.ok === false ? context.reservation.reason : 'no reservation')),
        },
        { target: 'deciding' },
      ],
    },
    deciding: {
      entry: assign(({ context }) => ({ turns: context.turns + 1 })),
      invoke: {
        id: 'decide',
        src: 'decide',
        input: ({ context }) => ({
          escalation: context.escalation,
          allowed: [...context.escalation.allowed_actions],
          turn: context.turns,
          ...(context.feedback !== undefined ? { feedback: context.feedback } : {}),
          memory: context.ledger.memory,
        }),
        onDone: [
          {
            guard: 'decideFailed',
            target: 'applied',
            actions: assign(({ context, event }) => {
              const ctx = { ...context, cost_usd: turnCost(context, event.output?.cost_usd) };
              return { cost_usd: ctx.cost_usd, ...fail(ctx, 'default', `the supervisor failed: ${event.output?.failure ?? ''}`) };
            }),
          },
          {
            target: 'judging',
            actions: assign(({ context, event }) => {
              const parsed = Verdict.safeParse(event.output?.verdict);
              const malformed = event.output?.malformed ?? (parsed.success ? undefined : refusedAnswer(event.output?.verdict));
              return { cost_usd: turnCost(context, event.output?.cost_usd), proposed: parsed.success ? parsed.data : undefined, malformed };
            }),
          },
        ],
        onError: {
          target: 'applied',
          actions: assign(({ context, event }) => {
            const ctx = { ...context, cost_usd: turnCost(context) };
            return { cost_usd: ctx.cost_usd, ...fail(ctx, 'default', `the supervisor failed: ${errorMessage(event.error)}`) };
          }),
        },
      },
      after: {
        // Leaving the state stops the actor: the host's signal aborts the model call.
        decisionTimeout: {
          guard: 'hasTimeout',
          target: 'applied',
          actions: assign(({ context }) => {
            const ctx = { ...context, cost_usd: turnCost(context) };
            return { cost_usd: ctx.cost_usd, ...fail(ctx, 'default', `the supervisor did not decide within ${timeoutOf(context)} ms`) };
          }),
        },
      },
    },
    judging: {
      always: [
        { guard: 'proposalMalformed', target: 'applied', actions: assign(({ context }) => failOver(context, malformedReason(context))) },
        {
          guard: 'proposalOutsideAllowed',
          target: 'applied',
          actions: assign(({ context }) =>
            failOver(context, `the supervisor chose ${context.proposed?.action}, which is not allowed here (allowed: ${context.escalation.allowed_actions.join(', ')})`),
          ),
        },
        {
          guard: 'retryOverBound',
          target: 'applied',
          actions: assign(({ context }) => fail(context, 'bounds', `${context.escalation.invocation_key} used all ${context.settings.max_retries} retries`)),
        },
        { guard: 'proposalIsSubstitute', target: 'validating' },
        { target: 'applied', actions: 'applyProposal' },
      ],
    },
    validating: {
      invoke: {
        id: 'validateSubstitute',
        src: 'validateSubstitute',
        input: ({ context }) => ({
          escalation: context.escalation,
          value: context.proposed?.action === 'substitute' ? context.proposed.value : {},
        }),
        onDone: [
          { guard: 'substituteValid', target: 'applied', actions: 'applyProposal' },
          {
            guard: 'repairLeft',
            target: 'reserving',
            actions: assign(({ event }) => ({ feedback: event.output.ok ? undefined : `The substitute value was refused: ${event.output.problems}. Repair it or choose another action.` })),
          },
          {
            target: 'applied',
            actions: assign(({ context, event }) =>
              fail(context, 'kernel', `the substitute still failed validation after ${MAX_REPAIR_ROUNDS} repairs${event.output.ok ? '' : `: ${event.output.problems}`}`),
            ),
          },
        ],
        onError: { target: 'applied', actions: assign(({ context, event }) => fail(context, 'kernel', `the substitute could not be validated: ${errorMessage(event.error)}`)) },
      },
    },
    applied: { type: 'final' },
  },
});

export type SupervisorMachine = typeof supervisorMachine;
