import { createActor, fromPromise, type Actor, type AnyTransitionDefinition, type InspectionEvent } from 'xstate';
import { scsMachine, type CommitteeInput, type MonitorInput, type ScsContext, type ScsEmitted, type ScsEvent, type ScsInput } from '../machine';
import type { RoundFact } from '../contracts';

/**
 * Drives a live SCS machine whose committee and monitor are scripted models (test doubles at the
 * model boundary). Each role call records its input and stays pending until the test answers or
 * fails it, so the machine decides every step itself; the journal keeps, in order, what each role
 * was asked, what the run loop sent, every microstep of the machine and every emitted event.
 */

export const ROLES = ['committee', 'monitor'] as const;
export type RoleName = (typeof ROLES)[number];
export interface RoleInputs {
  committee: CommitteeInput;
  monitor: MonitorInput;
}

export type Settlement = { kind: 'done'; output: unknown } | { kind: 'error'; message: string };
export type RoleCall = { [R in RoleName]: { kind: 'call'; role: R; input: RoleInputs[R]; settled?: Settlement } }[RoleName];
export interface StepEntry {
  kind: 'step';
  value: string;
  context: ScsContext;
  transitions: string[];
}
export type ScsJournalEntry = RoleCall | StepEntry | { kind: 'event'; event: ScsEmitted } | { kind: 'sent'; event: ScsEvent };

/**
 * The emitted event of type `T`. (`Extract` does not do: the monitor's events share one schema
 * whose `type` is a union of literals.)
 */
export type EmittedOf<T extends ScsEmitted['type'], E = ScsEmitted> = E extends { type: infer U } ? (T extends U ? E & { type: T } : never) : never;

interface Pending {
  call: RoleCall;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Microtask turns an answer needs to reach the next wait (a handful); bounded so a stuck machine fails fast. */
const MAX_TURNS = 200;

/** A stable name for a machine transition, e.g. `judgingPlan|always|approved`. */
export function transitionKey(t: AnyTransitionDefinition): string {
  const guard = t.guard === undefined ? 'else' : typeof t.guard === 'string' ? t.guard : ((t.guard as { type?: string }).type ?? 'inline');
  return `${t.source.key}|${t.eventType === '' ? 'always' : t.eventType}|${guard}`;
}

const harnessBySystem = new WeakMap<object, ScsHarness>();

function scriptedRole<R extends RoleName>(role: R) {
  return fromPromise<unknown, RoleInputs[R]>(({ input, system }) => {
    const harness = harnessBySystem.get(system);
    if (!harness) throw new Error(`no scripted ${role} registered`);
    return harness.invoke(role, input);
  });
}

const SCRIPTED_ROLES = { committee: scriptedRole('committee'), monitor: scriptedRole('monitor') };
const provided = new WeakMap<typeof scsMachine, typeof scsMachine>();

/** `machine` with both roles scripted (cached per machine: providing is the costly part). */
export function withScriptedRoles(machine: typeof scsMachine): typeof scsMachine {
  let m = provided.get(machine);
  if (!m) {
    m = machine.provide({ actors: SCRIPTED_ROLES });
    provided.set(machine, m);
  }
  return m;
}

export class ScsHarness {
  readonly journal: ScsJournalEntry[] = [];
  readonly actor: Actor<typeof scsMachine>;
  private readonly pending: Pending[] = [];

  private constructor(readonly input: ScsInput, machine: typeof scsMachine) {
    const inspect = (ev: InspectionEvent): void => {
      // Only the controller's own microsteps, not those of its invoked roles.
      if (ev.type !== '@xstate.microstep' || ev.actorRef.sessionId !== ev.rootId) return;
      const snap = ev.snapshot as { value?: unknown; context?: ScsContext };
      if (!snap.context) return;
      this.journal.push({ kind: 'step', value: String(snap.value), context: snap.context, transitions: ev._transitions.map(transitionKey) });
    };
    this.actor = createActor(withScriptedRoles(machine), { input, inspect });
    harnessBySystem.set(this.actor.system, this);
    this.actor.on('*', (event) => this.journal.push({ kind: 'event', event }));
  }

  /** Starts the controller; it is then waiting for the committee's first draft. */
  static async start(input: ScsInput, machine: typeof scsMachine = scsMachine): Promise<ScsHarness> {
    const h = new ScsHarness(input, machine);
    h.actor.start();
    await h.quiesce();
    return h;
  }

  /** Called by the scripted role actors. */
  invoke<R extends RoleName>(role: R, input: RoleInputs[R]): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      const call = { kind: 'call', role, input } as RoleCall;
      this.journal.push(call);
      this.pending.push({ call, resolve, reject });
    });
  }

  get value(): string {
    return String(this.actor.getSnapshot().value);
  }
  get status(): string {
    return this.actor.getSnapshot().status;
  }
  get context(): ScsContext {
    return this.actor.getSnapshot().context;
  }
  /** The role the machine is waiting on, if any. */
  waitingOn(): RoleName | undefined {
    return this.pending[0]?.call.role;
  }

  events(): ScsEmitted[] {
    return this.journal.flatMap((e) => (e.kind === 'event' ? [e.event] : []));
  }
  eventTypes(): string[] {
    return this.events().map((e) => e.type);
  }
  eventsOf<T extends ScsEmitted['type']>(type: T): EmittedOf<T>[] {
    return this.events().filter((e): e is EmittedOf<T> => e.type === type);
  }
  calls<R extends RoleName>(role: R): RoleInputs[R][] {
    return this.journal.flatMap((e) => (e.kind === 'call' && e.role === role ? [e.input as RoleInputs[R]] : []));
  }

  /** The scripted model for `role` answers its pending call with `output` (validated by the machine, not here). */
  async answer(role: RoleName, output: unknown): Promise<void> {
    const p = this.take(role);
    p.call.settled = { kind: 'done', output };
    p.resolve(output);
    await this.quiesce();
  }

  /** The call to `role` fails (the model server is down, a timeout). */
  async fail(role: RoleName, message: string): Promise<void> {
    const p = this.take(role);
    p.call.settled = { kind: 'error', message };
    p.reject(new Error(message));
    await this.quiesce();
  }

  /** The run loop reports an event (ROUND_DONE, FINISH_REQUESTED). */
  async send(event: ScsEvent): Promise<void> {
    this.journal.push({ kind: 'sent', event });
    this.actor.send(event);
    await this.quiesce();
  }
  round(fact: RoundFact): Promise<void> {
    return this.send({ type: 'ROUND_DONE', fact });
  }
  finish(round: number): Promise<void> {
    return this.send({ type: 'FINISH_REQUESTED', round });
  }

  stop(): void {
    this.actor.stop();
  }

  private take(role: RoleName): Pending {
    const i = this.pending.findIndex((p) => p.call.role === role);
    const p = i >= 0 ? this.pending.splice(i, 1)[0] : undefined;
    if (!p) throw new Error(`no pending ${role} call (the machine is in ${this.value}, waiting on ${this.waitingOn() ?? 'the run loop'})`);
    return p;
  }

  /** Waits (bounded) until the machine rests: final, executing, or waiting on a role it has called. */
  private async quiesce(): Promise<void> {
    for (let turn = 0; turn < MAX_TURNS; turn++) {
      const snap = this.actor.getSnapshot();
      if (snap.status !== 'active' || snap.value === 'executing' || this.pending.length > 0) return;
      await Promise.resolve();
    }
    throw new Error(`the SCS machine did not settle (in ${this.value})`);
  }
}

/** Every transition of `machine` by its stable key. */
export function allTransitionKeys(machine: typeof scsMachine = scsMachine): string[] {
  const keys: string[] = [];
  const visit = (node: typeof scsMachine.root): void => {
    for (const list of node.transitions.values()) for (const t of list) keys.push(transitionKey(t));
    for (const t of node.always ?? []) keys.push(transitionKey(t));
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root);
  return keys;
}

export function allStateKeys(machine: typeof scsMachine = scsMachine): string[] {
  return Object.keys(machine.root.states);
}
