import { createActor, fromPromise, SimulatedClock, toPromise } from 'xstate';
import { supervisorMachine, type DecideInput, type DecideOutput, type SubstituteCheck, type SupervisorInput, type SupervisorOutput, type ValidateInput } from '../machine';

/**
 * The scripted supervisor double (the one allowed double: it stands at the model boundary) and a
 * scripted substitute validator. Each answer is used once, in order: a verdict (any value — the
 * kernel parses it), an Error (the supervisor failed), or HANG (it never answers: a timeout).
 * Every call is recorded with its input, and whether the kernel aborted it.
 */

export const HANG = Symbol('hang');
export type ScriptedAnswer = Pick<DecideOutput, 'verdict' | 'cost_usd' | 'malformed'> | Error | typeof HANG;

/** The part of an AbortSignal the double uses (src-shared has no DOM types). */
export interface AbortListener {
  addEventListener(type: 'abort', listener: () => void): void;
}

export interface ScriptedCall {
  input: DecideInput;
  aborted: boolean;
}

export class ScriptedSupervisorDouble {
  readonly calls: ScriptedCall[] = [];
  readonly validations: ValidateInput[] = [];
  private readonly answers: ScriptedAnswer[];
  private readonly checks: SubstituteCheck[];

  constructor(answers: ScriptedAnswer[] = [], checks: SubstituteCheck[] = []) {
    this.answers = [...answers];
    this.checks = [...checks];
  }

  decide(input: DecideInput, signal: AbortListener): Promise<DecideOutput> {
    const call: ScriptedCall = { input, aborted: false };
    this.calls.push(call);
    signal.addEventListener('abort', () => {
      call.aborted = true;
    });
    const answer = this.answers.shift();
    if (answer === undefined) return Promise.reject(new Error('the scripted supervisor has no answer left'));
    if (answer === HANG) return new Promise<DecideOutput>(() => undefined);
    if (answer instanceof Error) return Promise.reject(answer);
    return Promise.resolve(answer);
  }

  validate(input: ValidateInput): Promise<SubstituteCheck> {
    this.validations.push(input);
    return Promise.resolve(this.checks.shift() ?? { ok: true });
  }

  /** The machine with this double as its supervisor and validator. */
  machine(): typeof supervisorMachine {
    return supervisorMachine.provide({
      actors: {
        decide: fromPromise<DecideOutput, DecideInput>(({ input, signal }) => this.decide(input, signal)),
        validateSubstitute: fromPromise<SubstituteCheck, ValidateInput>(({ input }) => this.validate(input)),
      },
    });
  }
}

const MAX_TURNS = 200;

/**
 * Runs one decision to its end. A HANG answer is timed out on a simulated clock (the machine's
 * own delay), so tests never wait in real time.
 */
export async function runDecision(input: SupervisorInput, double: ScriptedSupervisorDouble): Promise<SupervisorOutput> {
  const clock = new SimulatedClock();
  const actor = createActor(double.machine(), { input, clock });
  const done = toPromise(actor);
  actor.start();
  for (let turn = 0; turn < MAX_TURNS && actor.getSnapshot().status === 'active'; turn++) {
    await Promise.resolve();
    // Still deciding after the microtasks settled: the supervisor hangs, so time passes.
    if (turn % 20 === 19 && actor.getSnapshot().value === 'deciding') clock.increment(input.settings.who.decision_timeout_ms ?? 0);
  }
  if (actor.getSnapshot().status === 'active') {
    actor.stop();
    throw new Error(`the decision did not finish (state ${String(actor.getSnapshot().value)})`);
  }
  return done;
}
