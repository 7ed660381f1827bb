import { createActor, fromPromise, type Actor, type AnyTransitionDefinition, type InspectionEvent } from 'xstate';
import type { AuthorizationFacts } from '../authorization';
import {
  boundaryMachine,
  type AuthorizeInput,
  type BoundaryEmitted,
  type BoundaryInput,
  type CommitInput,
  type DeliverInput,
  type ExecuteInput,
  type ProposeInput,
  type ReviewInput,
} from '../machine';
import type { ModelReply } from '../../contracts/model';
import type { RoundRecord, ToolExecution } from '../../contracts/round';
import type { BoundaryPath, EffectName, PathEvent } from './path-alphabet';

/**
 * Replays a generated path against a live boundary actor. Each host effect is a scripted actor
 * (`fromPromise`) that records its input and stays pending until the replay settles it with the
 * path's next output or error, so the live machine decides every step itself and the journal shows
 * exactly what each effect was asked to do, in order, next to every emitted event.
 */

export interface EffectInputs {
  propose: ProposeInput;
  review: ReviewInput;
  authorize: AuthorizeInput;
  commit: CommitInput;
  execute: ExecuteInput;
  deliver: DeliverInput;
}
export interface EffectOutputs {
  propose: ModelReply;
  review: ModelReply;
  authorize: AuthorizationFacts;
  commit: { history_index: number };
  execute: ToolExecution;
  deliver: void;
}

export type Settlement = { kind: 'done'; output: unknown } | { kind: 'error'; message: string } | { kind: 'abandoned' };

export type EffectCall = {
  [E in EffectName]: { kind: 'call'; effect: E; input: EffectInputs[E]; settled?: Settlement };
}[EffectName];
export type JournalEntry = EffectCall | { kind: 'event'; event: BoundaryEmitted };

export interface Pending<E extends EffectName = EffectName> {
  call: Extract<EffectCall, { effect: E }>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Microtask turns a settled effect needs to reach the next invoke (a handful); bounded so a stuck machine fails fast. */
const MAX_TURNS = 200;

export class ScriptedEffects {
  readonly journal: JournalEntry[] = [];
  private readonly pending: Pending[] = [];

  invoke<E extends EffectName>(effect: E, input: EffectInputs[E]): Promise<EffectOutputs[E]> {
    return new Promise<EffectOutputs[E]>((resolve, reject) => {
      const call = { kind: 'call', effect, input } as EffectCall;
      this.journal.push(call);
      this.pending.push({ call, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  calls<E extends EffectName>(effect: E): Extract<EffectCall, { effect: E }>[] {
    return this.journal.filter((e): e is Extract<EffectCall, { effect: E }> => e.kind === 'call' && e.effect === effect);
  }

  /** The unsettled invocation of `effect`, waiting (bounded) for the machine to make it. */
  async take<E extends EffectName>(effect: E): Promise<Pending<E>> {
    for (let turn = 0; turn < MAX_TURNS; turn++) {
      const i = this.pending.findIndex((p) => p.call.effect === effect);
      if (i >= 0) return this.pending.splice(i, 1)[0] as unknown as Pending<E>;
      await Promise.resolve();
    }
    throw new Error(`the machine never invoked ${effect}`);
  }

  settle<E extends EffectName>(p: Pending<E>, event: PathEvent): void {
    if ('output' in event) {
      p.call.settled = { kind: 'done', output: event.output };
      p.resolve(event.output);
    } else if ('error' in event) {
      p.call.settled = { kind: 'error', message: event.error.message };
      p.reject(event.error);
    }
  }

  /** Invocations still pending when the round ended (stopped by CANCEL). */
  abandonRemaining(): void {
    for (const p of this.pending.splice(0)) p.call.settled = { kind: 'abandoned' };
  }
}

/**
 * The scripted actors find their journal through the actor system, so a machine is provided with
 * them once (providing is the costly part of starting a round) and every replay gets its own journal.
 */
const effectsBySystem = new WeakMap<object, ScriptedEffects>();

function scriptedActor<E extends EffectName>(effect: E) {
  return fromPromise<EffectOutputs[E], EffectInputs[E]>(({ input, system }) => {
    const effects = effectsBySystem.get(system);
    if (!effects) throw new Error(`no scripted effects registered for ${effect}`);
    return effects.invoke(effect, input);
  });
}

const SCRIPTED_ACTORS = {
  propose: scriptedActor('propose'),
  review: scriptedActor('review'),
  authorize: scriptedActor('authorize'),
  commit: scriptedActor('commit'),
  execute: scriptedActor('execute'),
  deliver: scriptedActor('deliver'),
};

const scripted = new WeakMap<typeof boundaryMachine, typeof boundaryMachine>();

/** `machine` with every host effect scripted (cached per machine). */
export function withScriptedEffects(machine: typeof boundaryMachine): typeof boundaryMachine {
  let provided = scripted.get(machine);
  if (!provided) {
    provided = machine.provide({ actors: SCRIPTED_ACTORS });
    scripted.set(machine, provided);
  }
  return provided;
}

/** Start `machine` with scripted effects; the caller drives it by settling `effects`. */
export function startScripted(
  machine: typeof boundaryMachine,
  input: BoundaryInput,
  inspect?: (ev: InspectionEvent) => void,
): { actor: Actor<typeof boundaryMachine>; effects: ScriptedEffects } {
  const effects = new ScriptedEffects();
  const actor = createActor(withScriptedEffects(machine), { input, inspect });
  effectsBySystem.set(actor.system, effects);
  actor.on('*', (event) => effects.journal.push({ kind: 'event', event }));
  actor.start();
  return { actor, effects };
}

const EFFECT_OF_STATE: Record<string, EffectName | undefined> = {
  proposing: 'propose',
  repairing: 'propose',
  reviewing: 'review',
  authorizing: 'authorize',
  committing: 'commit',
  executing: 'execute',
  delivering: 'deliver',
};

function effectOfEvent(event: PathEvent): EffectName | undefined {
  const m = /^xstate\.(?:done|error)\.actor\.(\w+)$/.exec(event.type);
  return m?.[1] as EffectName | undefined;
}

/** A stable name for a machine transition, e.g. `judging|always|verdictAccept`. */
export function transitionKey(t: AnyTransitionDefinition): string {
  const guard = t.guard === undefined ? 'else' : typeof t.guard === 'string' ? t.guard : ((t.guard as { type?: string }).type ?? 'inline');
  return `${t.source.key}|${t.eventType === '' ? 'always' : t.eventType}|${guard}`;
}

export interface ReplayTrace {
  input: BoundaryInput;
  journal: JournalEntry[];
  finalValue: string;
  status: string;
  output?: RoundRecord;
  /** Every state the live actor entered, transient ones included (from microsteps). */
  statesVisited: Set<string>;
  transitionsTaken: Set<string>;
  /** Where the live actor disagreed with the generated path (empty when they agree). */
  mismatches: string[];
}

async function untilDone(status: () => string): Promise<void> {
  for (let turn = 0; turn < MAX_TURNS && status() === 'active'; turn++) await Promise.resolve();
}

export async function replayPath(path: BoundaryPath, input: BoundaryInput, machine: typeof boundaryMachine = boundaryMachine): Promise<ReplayTrace> {
  const statesVisited = new Set<string>(['starting']);
  const transitionsTaken = new Set<string>();
  const mismatches: string[] = [];

  const inspect = (ev: InspectionEvent): void => {
    // Only the boundary's own microsteps, not those of its invoked effects.
    if (ev.type !== '@xstate.microstep' || ev.actorRef.sessionId !== ev.rootId) return;
    statesVisited.add(String((ev.snapshot as { value?: unknown }).value));
    for (const t of ev._transitions) transitionsTaken.add(transitionKey(t));
  };
  const { actor, effects } = startScripted(machine, input, inspect);

  // steps[0] is the initial snapshot (`xstate.init`); each later step is an event and the state it led to.
  for (let i = 1; i < path.steps.length; i++) {
    const before = path.steps[i - 1];
    const step = path.steps[i];
    if (!before || !step) break;
    const effect = effectOfEvent(step.event) ?? EFFECT_OF_STATE[String(before.state.value)];
    if (!effect) {
      mismatches.push(`step ${i}: no effect pending in ${String(before.state.value)} for ${step.event.type}`);
      break;
    }
    const pending = await effects.take(effect).catch((err: unknown) => {
      mismatches.push(`step ${i}: ${err instanceof Error ? err.message : String(err)} (path expects ${step.event.type})`);
      return undefined;
    });
    if (!pending) break;
    const live = actor.getSnapshot();
    if (live.value !== before.state.value) mismatches.push(`step ${i}: live state ${String(live.value)} ≠ path state ${String(before.state.value)}`);
    if (live.context.attempts.length !== before.state.context.attempts.length) mismatches.push(`step ${i}: live verdict attempts differ from the path's`);
    if (step.event.type === 'CANCEL') {
      pending.call.settled = { kind: 'abandoned' };
      actor.send({ type: 'CANCEL', reason: step.event.reason });
    } else {
      effects.settle(pending, step.event);
    }
  }

  await untilDone(() => actor.getSnapshot().status);
  effects.abandonRemaining();
  const final = actor.getSnapshot();
  actor.stop();
  if (final.value !== path.state.value) mismatches.push(`final: live ${String(final.value)} ≠ path ${String(path.state.value)}`);
  if (JSON.stringify(final.output) !== JSON.stringify(path.state.output)) mismatches.push('final: live output differs from the path output');

  return {
    input,
    journal: effects.journal,
    finalValue: String(final.value),
    status: final.status,
    output: final.output,
    statesVisited,
    transitionsTaken,
    mismatches,
  };
}

/** Every transition of the boundary machine by its stable key. */
export function allTransitionKeys(): string[] {
  const keys: string[] = [];
  const visit = (node: typeof boundaryMachine.root): void => {
    for (const list of node.transitions.values()) for (const t of list) keys.push(transitionKey(t));
    for (const t of node.always ?? []) keys.push(transitionKey(t));
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(boundaryMachine.root);
  return keys;
}

export function allStateKeys(): string[] {
  return Object.keys(boundaryMachine.root.states);
}
