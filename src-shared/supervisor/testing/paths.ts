import { createActor, fromPromise, SimulatedClock, type InspectionEvent, type SnapshotFrom } from 'xstate';
import { getSimplePaths, type StatePath } from 'xstate/graph';
// The same stable transition names the boundary's path tests use.
import { transitionKey } from '../../boundary/testing/replay';
import { MAX_REPAIR_ROUNDS, SUPERVISOR_ACTIONS } from '../contracts';
import type { Reservation } from '../cost';
import { supervisorMachine, type DecideInput, type DecideOutput, type SubstituteCheck, type SupervisorInput, type SupervisorOutput, type ValidateInput } from '../machine';
import { VERDICTS } from './fixtures';

/**
 * Model-based testing of the decision machine: an alphabet of everything the host's supervisor and
 * validator could answer (every verdict, a malformed one, a failure, a timeout; valid, invalid,
 * failing validation), every simple path to a final state (xstate/graph), and a replay of each
 * path against a live actor whose effects are pending promises settled from the path, on a
 * simulated clock. The checks (K1–K9) read what the live actor asked and what it decided.
 */

export const TIMEOUT_EVENT = 'xstate.after.decisionTimeout.workflowSupervisor.deciding';

export type PathEvent =
  | { type: 'xstate.done.actor.decide'; output: DecideOutput }
  | { type: 'xstate.error.actor.decide'; error: Error }
  | { type: typeof TIMEOUT_EVENT }
  | { type: 'xstate.done.actor.validateSubstitute'; output: SubstituteCheck }
  | { type: 'xstate.error.actor.validateSubstitute'; error: Error };

type Snapshot = SnapshotFrom<typeof supervisorMachine>;
export type SupervisorPath = StatePath<Snapshot, PathEvent>;

const DECIDE_EVENTS: PathEvent[] = [
  ...SUPERVISOR_ACTIONS.map((a) => ({ type: 'xstate.done.actor.decide' as const, output: { verdict: VERDICTS[a] } })),
  { type: 'xstate.done.actor.decide', output: { verdict: { action: 'escalate_to_god' } } },
  { type: 'xstate.error.actor.decide', error: new Error('the model server went away') },
  { type: 'xstate.done.actor.decide', output: { verdict: undefined, failure: 'the reply was cut at its output bound' } },
  { type: TIMEOUT_EVENT },
];
const VALIDATE_EVENTS: PathEvent[] = [
  { type: 'xstate.done.actor.validateSubstitute', output: { ok: true } },
  { type: 'xstate.done.actor.validateSubstitute', output: { ok: false, problems: 'output: expected text' } },
  { type: 'xstate.error.actor.validateSubstitute', error: new Error('storage unavailable') },
];

export function generatePaths(input: SupervisorInput, machine: typeof supervisorMachine = supervisorMachine): SupervisorPath[] {
  const options = {
    input,
    events: (s: Snapshot) => (s.value === 'deciding' ? DECIDE_EVENTS : s.value === 'validating' ? VALIDATE_EVENTS : []),
    toState: (s: Snapshot) => s.status === 'done',
  };
  // The graph API types events as the machine's external events; invoked-actor and delay events are internal.
  return getSimplePaths(machine, options as never) as unknown as SupervisorPath[];
}

export interface DecideCall {
  input: DecideInput;
  answer?: PathEvent;
  aborted: boolean;
  /** The machine's reservation for this turn, and what its earlier turns had cost, when it called. */
  reservation?: Reservation;
  cost_before?: number;
}
export interface Trace {
  input: SupervisorInput;
  decides: DecideCall[];
  validations: ValidateInput[];
  output?: SupervisorOutput;
  statesVisited: Set<string>;
  transitionsTaken: Set<string>;
  mismatches: string[];
}

interface Pending<T> {
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
}

const MAX_TURNS = 200;

export async function replay(path: SupervisorPath, input: SupervisorInput, machine: typeof supervisorMachine = supervisorMachine): Promise<Trace> {
  const trace: Trace = { input, decides: [], validations: [], statesVisited: new Set(['escalated']), transitionsTaken: new Set(), mismatches: [] };
  const pendingDecide: Pending<DecideOutput>[] = [];
  const pendingValidate: Pending<SubstituteCheck>[] = [];
  const live = machine.provide({
    actors: {
      decide: fromPromise<DecideOutput, DecideInput>(({ input: decideInput, signal }) => {
        const call: DecideCall = { input: decideInput, aborted: false };
        trace.decides.push(call);
        signal.addEventListener('abort', () => {
          call.aborted = true;
        });
        return new Promise<DecideOutput>((resolve, reject) => pendingDecide.push({ resolve, reject }));
      }),
      validateSubstitute: fromPromise<SubstituteCheck, ValidateInput>(({ input: validateInput }) => {
        trace.validations.push(validateInput);
        return new Promise<SubstituteCheck>((resolve, reject) => pendingValidate.push({ resolve, reject }));
      }),
    },
  });
  const inspect = (ev: InspectionEvent): void => {
    if (ev.type !== '@xstate.microstep' || ev.actorRef.sessionId !== ev.rootId) return;
    trace.statesVisited.add(String((ev.snapshot as { value?: unknown }).value));
    for (const t of ev._transitions) trace.transitionsTaken.add(transitionKey(t));
  };
  const clock = new SimulatedClock();
  const actor = createActor(live, { input, clock, inspect });
  actor.start();

  const take = async <T>(queue: Pending<T>[], what: string): Promise<Pending<T> | undefined> => {
    for (let turn = 0; turn < MAX_TURNS; turn++) {
      const next = queue.shift();
      if (next) return next;
      await Promise.resolve();
    }
    trace.mismatches.push(`the machine never invoked ${what}`);
    return undefined;
  };

  for (let i = 1; i < path.steps.length; i++) {
    const before = path.steps[i - 1];
    const event = path.steps[i]?.event;
    if (!before || !event) break;
    if (event.type.endsWith('.decide') || event.type === TIMEOUT_EVENT) {
      const p = await take(pendingDecide, 'decide');
      if (!p) break;
      if (actor.getSnapshot().value !== before.state.value) trace.mismatches.push(`step ${i}: live ${String(actor.getSnapshot().value)} ≠ path ${String(before.state.value)}`);
      const call = trace.decides.at(-1);
      if (call) {
        call.answer = event;
        call.reservation = actor.getSnapshot().context.reservation;
        call.cost_before = actor.getSnapshot().context.cost_usd;
      }
      if (event.type === 'xstate.done.actor.decide') p.resolve(event.output);
      else if (event.type === 'xstate.error.actor.decide') p.reject(event.error);
      else clock.increment(input.settings.who.decision_timeout_ms ?? 0);
    } else {
      const p = await take(pendingValidate, 'validateSubstitute');
      if (!p) break;
      if (event.type === 'xstate.done.actor.validateSubstitute') p.resolve(event.output);
      else if (event.type === 'xstate.error.actor.validateSubstitute') p.reject(event.error);
    }
  }
  for (let turn = 0; turn < MAX_TURNS && actor.getSnapshot().status === 'active'; turn++) await Promise.resolve();
  const final = actor.getSnapshot();
  actor.stop();
  if (final.status !== 'done') trace.mismatches.push(`the live decision did not finish (in ${String(final.value)})`);
  trace.output = final.output;
  if (JSON.stringify(final.output) !== JSON.stringify(path.state.output)) trace.mismatches.push('the live output differs from the path output');
  return trace;
}

/** The claims every decision keeps, as the violations found in one trace. */
export function checkDecision(trace: Trace): string[] {
  const v: string[] = [];
  const out = trace.output;
  if (!out) return ['no output'];
  const { escalation, ledger, settings } = trace.input;
  const applied = out.verdict;
  const action = applied.verdict.action;
  const last = trace.decides.at(-1)?.answer;
  const lastVerdict = last?.type === 'xstate.done.actor.decide' ? (last.output.verdict as { action?: string }) : undefined;
  // K1: nothing outside the allowed set is ever applied.
  if (!escalation.allowed_actions.includes(action)) v.push(`K1: ${action} applied outside the allowed set ${escalation.allowed_actions.join(',')}`);
  // K2: a verdict outside the allowed set is a fail decided by the kernel.
  if (lastVerdict?.action !== undefined && (SUPERVISOR_ACTIONS as readonly string[]).includes(lastVerdict.action) && !escalation.allowed_actions.includes(lastVerdict.action as (typeof SUPERVISOR_ACTIONS)[number])) {
    if (action !== 'fail' || applied.decided_by !== 'kernel') v.push(`K2: ${lastVerdict.action} outside the set ended ${action} by ${applied.decided_by}`);
  }
  // K3: a retry is never applied after a cost was spent or something created, nor for an unsafe node.
  if (action === 'retry' && (escalation.spent_usd > 0 || escalation.created_assets.length > 0 || !escalation.retry_safe)) v.push('K3: retry applied where it is not safe');
  // K4: a streaming node never gets skip (nor retry or substitute).
  if (escalation.streaming && action !== 'end_stream' && action !== 'fail') v.push(`K4: streaming node got ${action}`);
  // K5: the agent decided only what the supervisor last said.
  if (applied.decided_by === 'agent' && JSON.stringify(lastVerdict) !== JSON.stringify(applied.verdict)) v.push('K5: agent-decided verdict is not the supervisor’s last answer');
  // K6: one turn per supervisor call, at most 1 + the repair rounds, each offered exactly the allowed set.
  if (applied.turns !== trace.decides.length) v.push(`K6: ${applied.turns} turns recorded, ${trace.decides.length} calls made`);
  if (trace.decides.length > 1 + MAX_REPAIR_ROUNDS) v.push(`K6: ${trace.decides.length} supervisor calls`);
  for (const c of trace.decides) if (JSON.stringify(c.input.allowed) !== JSON.stringify(escalation.allowed_actions)) v.push('K6: the supervisor was offered another set');
  // K7: sticky, bound-refused and kernel-only-fail decisions ask no one.
  if ((applied.decided_by === 'sticky' || (applied.turns === 0 && applied.decided_by !== 'default')) && trace.decides.length > 0) v.push('K7: a decision without a supervisor called one');
  // K8: a timeout aborts the call and defaults to fail.
  if (last?.type === TIMEOUT_EVENT && (!trace.decides.at(-1)?.aborted || applied.decided_by !== 'default' || action !== 'fail')) v.push('K8: a timeout did not abort and default to fail');
  // K8: a turn the supervisor could not answer (its call failed or was cut) defaults to fail.
  if (last?.type === 'xstate.done.actor.decide' && last.output.failure !== undefined && (applied.decided_by !== 'default' || action !== 'fail')) v.push('K8: a failed turn did not default to fail');
  // K9: the cost cap holds and the ledger counts one decision per asked supervisor.
  if (settings.cost_cap_usd !== undefined && out.ledger.spent_usd > settings.cost_cap_usd + 1e-12) v.push(`K9: spent ${out.ledger.spent_usd} over the cap ${settings.cost_cap_usd}`);
  for (const c of trace.decides) {
    if (c.reservation?.ok !== true) v.push('K9: the supervisor was called without a cost reservation');
    else if (settings.cost_cap_usd !== undefined && ledger.spent_usd + (c.cost_before ?? 0) + c.reservation.usd > settings.cost_cap_usd + 1e-12) v.push('K9: a turn was reserved past the cap');
  }
  if (out.ledger.decisions !== ledger.decisions + (trace.decides.length > 0 ? 1 : 0)) v.push('K9: the ledger miscounted decisions');
  return v;
}

export function allTransitionKeys(): string[] {
  const keys: string[] = [];
  const visit = (node: typeof supervisorMachine.root): void => {
    for (const list of node.transitions.values()) for (const t of list) keys.push(transitionKey(t));
    for (const t of node.always ?? []) keys.push(transitionKey(t));
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(supervisorMachine.root);
  return keys;
}

export function allStateKeys(): string[] {
  return Object.keys(supervisorMachine.root.states);
}
