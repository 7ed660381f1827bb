import { randomUUID } from 'node:crypto';
import { createActor, fromPromise, toPromise } from 'xstate';
import type { RunEventPayload } from '@shared/contracts/events';
import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import type { Invocation } from '@shared/workflow/invocation';
import type { SupervisorSettings, SupervisorVerdict, SupervisorWho, Verdict } from '@shared/supervisor/contracts';
import { recordVerdict } from '@shared/supervisor/ledger';
import { supervisorMachine, type DecideInput, type DecideOutput, type SubstituteCheck, type ValidateInput } from '@shared/supervisor/machine';
import type { PersonEscalation } from '@shared/supervisor/person-escalation';
import type { WorkflowSupervisionOptions } from './workflow-supervision';
import { nextOf, type FailedInvocation, type RunSupervision, type SupervisionResult, type WorkflowSupervisor } from './supervise-failure';

/**
 * A person supervises a workflow run (issue 11). The kernel's own rulings (sticky verdicts, bounds,
 * only `fail` allowed) apply at once, as for a model; otherwise the escalation waits, persisted with
 * the run like a waiting agent node, until the person answers in the app or with `steward answer`.
 *
 * The decision machine is not kept alive across the wait (the host may stop meanwhile): on the
 * answer it runs again from the escalation, its `decide` actor replaying the substitutes the kernel
 * already refused, then the new answer. The machine is deterministic given the same ledger, so the
 * repair bound, the allowed set and the bounds hold across a restart exactly as in one sitting.
 */

type PersonWho = Extract<SupervisorWho, { kind: 'person' }>;

/** A person's supervisor: it never decides through `decide` (the run parks instead); `person` says so. */
export interface PersonSupervisor extends WorkflowSupervisor {
  identity: { kind: 'person' };
  person: { decision_timeout_ms?: number };
}

/** The constructor resolve-supervision calls for `who: person`. */
export function personSupervisor(who: PersonWho = { kind: 'person' }): PersonSupervisor {
  return {
    identity: { kind: 'person' },
    person: who.decision_timeout_ms !== undefined ? { decision_timeout_ms: who.decision_timeout_ms } : {},
    // Fails closed: called anyway, the machine's default (`fail`) applies.
    decide: () => Promise.reject(new Error("a person answers in the run's waiting list")),
  };
}

export function isPersonSupervisor(s: WorkflowSupervisor): s is PersonSupervisor {
  return s.identity.kind === 'person' && 'person' in s;
}

/** Either the kernel (or the person's answer) decided, or the person is asked (again, after a refused substitute). */
export type PersonStep = { kind: 'decided'; result: SupervisionResult } | { kind: 'ask'; wait: PersonEscalation };

const AWAIT_PERSON = Symbol('await person');

/**
 * Runs the machine for `wait.escalation` with `answers` replayed turn by turn. `othersWaiting`:
 * escalations of this run waiting for the person now — they count against `max_decisions` as if
 * decided, so parked escalations never overshoot the bound.
 */
async function runDecision(supervision: RunSupervision, wait: PersonEscalation, answers: readonly Verdict[], othersWaiting: number): Promise<PersonStep> {
  const { deps } = supervision;
  let asked: { turn: number; feedback?: string } | undefined;
  let park: () => void = () => undefined;
  const parked = new Promise<typeof AWAIT_PERSON>((resolve) => (park = () => resolve(AWAIT_PERSON)));
  const machine = supervisorMachine.provide({
    actors: {
      decide: fromPromise<DecideOutput, DecideInput>(({ input }) => {
        const answer = answers[input.turn - 1];
        if (answer !== undefined) return Promise.resolve({ verdict: answer, cost_usd: 0 });
        asked = { turn: input.turn, ...(input.feedback !== undefined ? { feedback: input.feedback } : {}) };
        park();
        return new Promise<DecideOutput>(() => undefined);
      }),
      validateSubstitute: fromPromise<SubstituteCheck, ValidateInput>(({ input }) => deps.validate(input)),
    },
  });
  const ledger = supervision.ledger;
  const actor = createActor(machine, { input: { escalation: wait.escalation, settings: deps.settings, ledger: { ...ledger, decisions: ledger.decisions + othersWaiting }, who: { kind: 'person' } } });
  const done = toPromise(actor);
  actor.start();
  const out = await Promise.race([done, parked]);
  if (out === AWAIT_PERSON || asked !== undefined) {
    actor.stop();
    const turn = asked?.turn ?? answers.length + 1;
    return {
      kind: 'ask',
      wait: { ...wait, refused: answers.slice(0, turn - 1), ...(asked?.feedback !== undefined ? { feedback: asked.feedback.slice(0, 2000) } : {}) },
    };
  }
  // The machine's ledger carried the waiting ones as decisions: the run's ledger records this verdict only.
  supervision.ledger = recordVerdict(ledger, wait.escalation, out.verdict);
  return { kind: 'decided', result: { escalation: wait.escalation, verdict: out.verdict, next: nextOf(out.verdict, wait.failure) } };
}

/** A failed invocation under a person: decided at once by the kernel, or a wait to park. */
export function escalateToPerson(supervision: RunSupervision, supervisor: PersonSupervisor, failed: FailedInvocation, othersWaiting: number, now = new Date()): Promise<PersonStep> {
  return supervision.serial(() => {
    const escalation = supervision.escalationOf(failed);
    const timeout = supervisor.person.decision_timeout_ms;
    const wait: PersonEscalation = {
      escalation,
      failure: failed.failure,
      attempt: failed.attempt,
      refused: [],
      ...(timeout !== undefined ? { expires_at: new Date(now.getTime() + timeout).toISOString() } : {}),
    };
    return runDecision(supervision, wait, [], othersWaiting);
  });
}

/**
 * The person's verdict on a waiting escalation (checked against the allowed set before; the kernel
 * checks it again). Without a verdict, the machine runs for what now applies without asking: a
 * sticky verdict another answer left for the same failure.
 */
export function answerPerson(supervision: RunSupervision, wait: PersonEscalation, verdict: Verdict | undefined, othersWaiting: number): Promise<PersonStep> {
  return supervision.serial(() => runDecision(supervision, wait, verdict ? [...wait.refused, verdict] : wait.refused, othersWaiting));
}

/** Nobody answered in time: the default verdict, `fail` (a person who did not decide made no judgement). */
export function expirePerson(supervision: RunSupervision, wait: PersonEscalation, timeoutMs: number | undefined): SupervisionResult {
  const verdict: SupervisorVerdict = {
    escalation_id: wait.escalation.id,
    verdict: { action: 'fail', reason: `the person did not decide within ${timeoutMs !== undefined ? `${Math.round(timeoutMs / 1000)} s` : 'the time set'}` },
    decided_by: 'default',
    // The person was asked: it counts as a decision, as a model's timed-out turn does.
    turns: wait.refused.length + 1,
    cost_usd: 0,
  };
  supervision.ledger = recordVerdict(supervision.ledger, wait.escalation, verdict);
  return { escalation: wait.escalation, verdict, next: nextOf(verdict, wait.failure) };
}

/**
 * The answer that closes a waiting escalation nobody answered: a sticky skip/fail another answer
 * left (the answer is that verdict), or the decision time running out (`expired`; the default
 * verdict follows in `supervisor.verdict`). Without it the question would stay open in the trace.
 */
export function settledWithoutPerson(invocation: Pick<Invocation, 'id'>, intervention: Pick<Intervention, 'id'>, how: undefined | 'expired', result: SupervisionResult): RunEventPayload {
  const answer: HumanAnswer = how === 'expired' ? { action: 'expired' } : { action: 'verdict', verdict: result.verdict.verdict };
  return { type: 'intervention.answered', invocation_id: invocation.id, round: 0, intervention_id: intervention.id, answer, settled_by: how === 'expired' ? 'expiry' : 'sticky' };
}

/** The intervention a waiting escalation shows in "waiting for you" (and `steward runs waiting`). */
export function escalationIntervention(runId: string, wait: PersonEscalation, now = new Date()): Intervention {
  const e = wait.escalation;
  const reason = wait.feedback ?? `${e.node} failed${e.attempt > 1 ? ` (attempt ${e.attempt})` : ''}: ${e.detail}`;
  return {
    id: `supervise-${randomUUID()}`,
    run_id: runId,
    round: 0,
    kind: 'supervisor_escalation',
    reason: reason.slice(0, 4000),
    reason_codes: [],
    options: ['verdict'],
    requested_at: now.toISOString(),
    supervision: wait,
  };
}

/** A resumed run's person supervision, from the settings its checkpoint kept (undefined for any other). */
export function personSupervisionOf(settings: SupervisorSettings | undefined): WorkflowSupervisionOptions | undefined {
  if (!settings?.enabled || settings.who.kind !== 'person') return undefined;
  return { settings, supervisor: personSupervisor(settings.who) };
}
