import { createActor, fromPromise, type InspectionEvent, type SnapshotFrom } from 'xstate';
import { getShortestPaths, type StatePath } from 'xstate/graph';
// The same stable transition names the boundary's path tests use.
import { transitionKey } from '../../boundary/testing/replay';
import { patternMachine, type DispatchInput, type JudgeAnswer, type JudgeInput, type PatternEmitted, type PatternEvent, type PatternInput } from '../machine';
import type { JudgmentRecord, PatternOutcome } from '../contracts';
import { AT, judgeAnswers, MALFORMED_DISPATCH, membersAnswer, type JudgeAnswerName } from './fixtures';

/**
 * Model-based testing of the pattern driver: an alphabet of what the host's members and judges
 * could answer (and what a person or the expiry timer could send), a path to every (state, last
 * event) pair (xstate/graph), and a replay of each maximal path against a live actor whose effects
 * are pending promises settled from the path. The checks (invariants.ts) read what the live actor
 * asked, what it was answered and what it decided.
 */

export type PathEvent =
  | PatternEvent
  | { type: 'xstate.done.actor.dispatch'; output: unknown }
  | { type: 'xstate.error.actor.dispatch'; error: Error }
  | { type: 'xstate.done.actor.judge'; output: JudgeAnswer }
  | { type: 'xstate.error.actor.judge'; error: Error };

export type PatternSnapshot = SnapshotFrom<typeof patternMachine>;
export type PatternPath = StatePath<PatternSnapshot, PathEvent>;

const JUDGE_NAMES: JudgeAnswerName[] = ['approved', 'rejected', 'escalated', 'free_text', 'bad_citation'];
const HUMAN_NAMES: JudgeAnswerName[] = ['approved', 'rejected', 'free_text'];

function cites(s: PatternSnapshot): string[] {
  return s.context.candidate?.outputs.map((o) => o.id) ?? [];
}

export function pathEvents(s: PatternSnapshot): PathEvent[] {
  if (s.status !== 'active') return [];
  const c = s.context;
  switch (s.value) {
    case 'dispatching': {
      const members = c.steps[c.step] ?? [];
      const confident = c.settings.judgment.trigger.kind === 'below_confidence' ? [membersAnswer(c.step, c.iteration, members, 0.95)] : [];
      return [
        { type: 'xstate.done.actor.dispatch', output: membersAnswer(c.step, c.iteration, members, 0.2) },
        ...confident.map((output) => ({ type: 'xstate.done.actor.dispatch' as const, output })),
        { type: 'xstate.done.actor.dispatch', output: MALFORMED_DISPATCH },
        { type: 'xstate.error.actor.dispatch', error: new Error('a member’s model went away') },
      ];
    }
    case 'asking': {
      const answers = judgeAnswers(cites(s));
      return [
        ...JUDGE_NAMES.map((n) => ({ type: 'xstate.done.actor.judge' as const, output: { answer: answers[n], ...AT } })),
        { type: 'xstate.error.actor.judge', error: new Error('the judge timed out') },
      ];
    }
    case 'waiting': {
      const answers = judgeAnswers(cites(s));
      return [
        ...HUMAN_NAMES.map((n) => ({ type: 'HUMAN_ANSWERED' as const, answer: answers[n], who: 'ana', ...AT })),
        { type: 'JUDGMENT_EXPIRED', at: AT.ended_at },
        { type: 'CANCEL', reason: 'user pressed stop' },
      ];
    }
    default:
      return [];
  }
}

/** A stable name for an event: its type and what it carries, minus the timing. */
export function eventKey(e: PathEvent): string {
  if ('error' in e) return `${e.type}:${e.error.message}`;
  if ('output' in e) return `${e.type}:${JSON.stringify(e.output)}`;
  if (e.type === 'HUMAN_ANSWERED') return `${e.type}:${JSON.stringify(e.answer)}`;
  return e.type;
}

/** The driver's state as far as its future depends on it (free text reduced to whether it is there). */
export function abstractState(s: PatternSnapshot): string {
  const c = s.context;
  return JSON.stringify({
    v: s.value,
    st: s.status,
    step: c.step,
    it: c.iteration,
    its: c.iterations,
    caller: c.callerIndex,
    attempt: c.attempt,
    fb: c.fallback,
    problem: c.problem !== undefined,
    verdicts: c.verdicts.map((v) => v.verdict),
    agreement: c.agreement?.decision ?? null,
    candidate: c.candidate ? (c.candidate.confidence ?? null) : 'none',
    candidates: c.candidates.map((x) => x.approvals),
    feedback: c.feedback !== undefined,
    result: c.result?.approved ?? null,
    judgments: c.judgments.length,
  });
}

type GraphOptions = NonNullable<Parameters<typeof getShortestPaths<typeof patternMachine>>[1]>;

/** Past the iteration bound: the graph stops there (the real driver never gets there; a mutant would loop forever). */
const beyondBounds = (s: PatternSnapshot): boolean => s.context.iteration > s.context.settings.max_iterations + 1 || s.context.attempt > 3;

export function generatePaths(input: PatternInput, machine: typeof patternMachine = patternMachine): PatternPath[] {
  const options = {
    input,
    events: pathEvents,
    serializeState: (s: PatternSnapshot, e: PathEvent | undefined) => `${abstractState(s)}|${e ? eventKey(e) : 'init'}`,
    serializeEvent: eventKey,
    stopWhen: beyondBounds,
  };
  // The graph API types events as the machine's external events; invoked-actor events are internal.
  return getShortestPaths(machine, options as unknown as GraphOptions) as unknown as PatternPath[];
}

const pathKey = (steps: PatternPath['steps']): string => steps.map((s) => eventKey(s.event)).join('|');

/** Paths no other path extends: the generated paths form a tree, so replaying these checks every prefix too. */
export function maximalPaths(paths: PatternPath[]): PatternPath[] {
  const prefixes = new Set(paths.map((p) => pathKey(p.steps.slice(0, -1))));
  return paths.filter((p) => !prefixes.has(pathKey(p.steps)));
}

export function describePath(path: PatternPath): string {
  return path.steps
    .slice(1)
    .map((s) => `${eventKey(s.event).replace('xstate.', '').slice(0, 50)} → ${String(s.state.value)}`)
    .join(', ');
}

export type JournalEntry =
  | { kind: 'dispatch'; input: DispatchInput; answer?: unknown; error?: string }
  | { kind: 'judge'; input: JudgeInput; answer?: unknown; error?: string }
  | { kind: 'sent'; event: PatternEvent }
  | { kind: 'emitted'; event: PatternEmitted };

export interface Trace {
  input: PatternInput;
  journal: JournalEntry[];
  finalValue: string;
  status: string;
  output?: PatternOutcome;
  /** Every judgment the live driver recorded (the output's, or the context's on a path that ends before a final state). */
  judgments: JudgmentRecord[];
  statesVisited: Set<string>;
  transitionsTaken: Set<string>;
  mismatches: string[];
}

interface Pending {
  entry: Extract<JournalEntry, { kind: 'dispatch' | 'judge' }>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

const MAX_TURNS = 200;

export async function replay(path: PatternPath, input: PatternInput, machine: typeof patternMachine = patternMachine): Promise<Trace> {
  const journal: JournalEntry[] = [];
  const pending: Pending[] = [];
  const trace: Trace = { input, journal, finalValue: '', status: '', judgments: [], statesVisited: new Set(['routing']), transitionsTaken: new Set(), mismatches: [] };
  const effect = <K extends 'dispatch' | 'judge'>(kind: K) =>
    fromPromise<unknown, K extends 'dispatch' ? DispatchInput : JudgeInput>(({ input: effectInput }) => {
      const entry = { kind, input: effectInput } as Pending['entry'];
      journal.push(entry);
      return new Promise((resolve, reject) => pending.push({ entry, resolve, reject }));
    });
  const live = machine.provide({ actors: { dispatch: effect('dispatch'), judge: effect('judge') as never } });
  const inspect = (ev: InspectionEvent): void => {
    if (ev.type !== '@xstate.microstep' || ev.actorRef.sessionId !== ev.rootId) return;
    trace.statesVisited.add(String((ev.snapshot as { value?: unknown }).value));
    for (const t of ev._transitions) trace.transitionsTaken.add(transitionKey(t));
  };
  const actor = createActor(live, { input, inspect });
  actor.on('*', (event) => journal.push({ kind: 'emitted', event }));
  actor.start();

  const settle = async (): Promise<void> => {
    for (let turn = 0; turn < MAX_TURNS; turn++) {
      const s = actor.getSnapshot();
      if (s.status !== 'active' || s.value === 'waiting' || pending.length > 0) return;
      await Promise.resolve();
    }
  };
  await settle();

  for (let i = 1; i < path.steps.length; i++) {
    const step = path.steps[i];
    if (!step) break;
    const e = step.event;
    if (e.type.startsWith('xstate.')) {
      const kind = e.type.endsWith('.dispatch') ? 'dispatch' : 'judge';
      const p = pending[0]?.entry.kind === kind ? pending.shift() : undefined;
      if (!p) {
        trace.mismatches.push(`step ${i}: the machine is not calling ${kind} (in ${String(actor.getSnapshot().value)})`);
        break;
      }
      if ('output' in e) {
        p.entry.answer = e.output;
        p.resolve(e.output);
      } else if ('error' in e) {
        p.entry.error = e.error.message;
        p.reject(e.error);
      }
    } else {
      const sent = e as PatternEvent;
      journal.push({ kind: 'sent', event: sent });
      actor.send(sent);
    }
    await settle();
    const liveState = abstractState(actor.getSnapshot());
    if (liveState !== abstractState(step.state)) {
      trace.mismatches.push(`step ${i}: live ${liveState} ≠ path ${abstractState(step.state)}`);
      break;
    }
  }
  const final = actor.getSnapshot();
  actor.stop();
  return { ...trace, finalValue: String(final.value), status: final.status, output: final.output, judgments: final.context.judgments };
}

export function allTransitionKeys(machine: typeof patternMachine = patternMachine): string[] {
  const keys: string[] = [];
  const visit = (node: typeof patternMachine.root): void => {
    for (const list of node.transitions.values()) for (const t of list) keys.push(transitionKey(t));
    for (const t of node.always ?? []) keys.push(transitionKey(t));
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root);
  return keys;
}

export const allStateKeys = (machine: typeof patternMachine = patternMachine): string[] => Object.keys(machine.root.states);
