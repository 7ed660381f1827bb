import type { SnapshotFrom } from 'xstate';
import { adjacencyMapToArray, getAdjacencyMap, getShortestPaths, type StatePath } from 'xstate/graph';
import { DECISIONS_FOR_TRIGGER, type MonitorDecisionKind } from '../contracts';
import { scsMachine, type ScsEvent, type ScsInput } from '../machine';
import { ALL_ANSWERS, MALFORMED_DECISION, MALFORMED_PLAN, PLANS, failedFact, monitorAnswer, okFact, stoppingFact, writeFact } from './fixtures';
import type { RoleName } from './scripted-roles';

/**
 * The event alphabet for generating SCS paths with `xstate/graph`: in each resting state, what the
 * scripted committee or monitor could answer (valid, malformed, of every decision kind, or a failure)
 * and what the run loop could report (a round that worked, a round whose call failed, a finish).
 * Invoked-role events are the ones XState itself sends: `xstate.done.actor.<id>` / `xstate.error.actor.<id>`.
 */

export type PathEvent =
  | ScsEvent
  | { type: `xstate.done.actor.${RoleName}`; output: unknown }
  | { type: `xstate.error.actor.${RoleName}`; error: Error };

export type ScsSnapshot = SnapshotFrom<typeof scsMachine>;
export type ScsPath = StatePath<ScsSnapshot, PathEvent>;

const done = (role: RoleName, output: unknown): PathEvent => ({ type: `xstate.done.actor.${role}`, output });
const error = (role: RoleName, message: string): PathEvent => ({ type: `xstate.error.actor.${role}`, error: new Error(message) });

/**
 * `every`: each decision kind at every review, right or wrong for its trigger. `representative`:
 * the right kinds and one wrong kind per review (the wrong kinds all take the same transition), for
 * cases whose point is other settings, so the suite stays fast.
 */
export interface AlphabetOptions {
  answers?: 'every' | 'representative';
  /**
   * Also offer the committee's alternative plans (first phase), the student's choice among them —
   * edited, out of range, or with an invalid edit (refused) — and rounds that change a file (the file batch).
   */
  alternatives?: boolean;
}

/** The student's answers over alternatives: plan 2 edited (valid), a plan that does not exist, an edit that is not a plan, an edit that widens the plan's tools. */
const CHOICE_ANSWERS = [
  monitorAnswer('approve_plan', { choice: 2, edit: { plan: ['List the notes folder', 'Read each note', 'Quote the action items'] } }),
  monitorAnswer('approve_plan', { choice: 3 }),
  monitorAnswer('approve_plan', { choice: 1, edit: { plan: ['Write summary.md'] } }),
  monitorAnswer('approve_plan', { choice: 2, edit: { allowed_tools: ['list_directory', 'read_file', 'write_file'] } }),
];

/** What the monitor could answer: decision kinds (right or wrong for the trigger), malformed, a failure. */
function monitorEvents(snapshot: ScsSnapshot, options: AlphabetOptions): PathEvent[] {
  const trigger = snapshot.value === 'reviewingPlan' ? 'plan' : (snapshot.context.trigger ?? 'periodic');
  const right = (k: MonitorDecisionKind): boolean => (DECISIONS_FOR_TRIGGER[trigger] as readonly string[]).includes(k);
  const answers =
    options.answers === 'representative'
      ? [...ALL_ANSWERS.filter((a) => right(a.decision)), monitorAnswer(trigger === 'plan' ? 'finish_allowed' : 'approve_plan')]
      : [...ALL_ANSWERS];
  // accept_phase ends the phase (the next milestone), unless its next_required_action keeps it going or asks for the finish.
  // (representative: the one that keeps the phase going; every: both.)
  if (right('accept_phase')) answers.push(...(options.answers === 'representative' ? [ACCEPT_CONTINUE] : [ACCEPT_CONTINUE, ACCEPT_FINISH]));
  // An oversized extension only matters when the budget is the question; elsewhere it is one more wrong kind.
  if (trigger === 'budget') answers.push(monitorAnswer('extend_steps', { extend_by: 20 }));
  if (options.alternatives && trigger === 'plan' && snapshot.context.alternatives.length > 0) answers.push(...CHOICE_ANSWERS);
  return answers.map((a) => done('monitor', a)).concat(done('monitor', MALFORMED_DECISION), error('monitor', 'monitor timed out'));
}

const ACCEPT_CONTINUE = monitorAnswer('accept_phase', { next_required_action: 'supervisor_continue' });
const ACCEPT_FINISH = monitorAnswer('accept_phase', { next_required_action: 'finish' });

/** Every event the controller could receive in this snapshot. */
export function pathEvents(snapshot: ScsSnapshot, options: AlphabetOptions = {}): PathEvent[] {
  if (snapshot.status !== 'active') return [];
  const c = snapshot.context;
  switch (snapshot.value) {
    case 'planning':
      // A replan drafts a different phase, so the two phases are told apart in the trace.
      return [
        done('committee', c.phase === 0 ? PLANS.summarise : PLANS.replanned),
        ...(options.alternatives && c.phase === 0 ? [done('committee', { alternatives: [PLANS.summarise, PLANS.inspect] })] : []),
        done('committee', MALFORMED_PLAN),
        error('committee', 'model server unreachable'),
      ];
    case 'reviewingPlan':
    case 'monitoring':
      return monitorEvents(snapshot, options);
    case 'executing': {
      const round = c.facts.length + 1;
      // The run loop stops at the step budget (max_rounds): no round, no finish request after it.
      if (c.facts.length >= c.budget) return [];
      return [
        { type: 'ROUND_DONE', fact: okFact(round) },
        // A round that wrote a file (the file batch counts these).
        ...(options.alternatives ? [{ type: 'ROUND_DONE' as const, fact: writeFact(round) }] : []),
        // Always the same call, so a second failure in a row is the loop guard's case.
        { type: 'ROUND_DONE', fact: failedFact(round) },
        // A result that matches a stop condition, offered only where the plan has one.
        ...(c.plan && c.plan.stop_conditions.length > 0 ? [{ type: 'ROUND_DONE' as const, fact: stoppingFact(round) }] : []),
        { type: 'FINISH_REQUESTED', round },
      ];
    }
    default:
      // Transient states (drafted, judgingPlan, checkingTriggers, judgingProgress, monitorFailed) resolve by themselves.
      return [];
  }
}

/** Every edge of the graph: each resting state over the alphabet, an event it was offered, and where it led. */
export function scsEdges(input: ScsInput, alphabet: AlphabetOptions = {}): { state: ScsSnapshot; event: PathEvent; nextState: ScsSnapshot }[] {
  // Typed loosely for the same reason as pathOptions: the graph API knows only external events.
  const logic = scsMachine as unknown as Parameters<typeof getAdjacencyMap>[0];
  const options = pathOptions(input, alphabet) as unknown as Parameters<typeof getAdjacencyMap>[1];
  return adjacencyMapToArray(getAdjacencyMap(logic, options)) as unknown as { state: ScsSnapshot; event: PathEvent; nextState: ScsSnapshot }[];
}

/** A stable name for an event: its type and the answer or fact it carries. */
export function eventKey(event: PathEvent): string {
  if ('error' in event) return `${event.type}:${event.error.message}`;
  if ('output' in event) return `${event.type}:${JSON.stringify(event.output)}`;
  return event.type === 'ROUND_DONE' ? `ROUND_DONE:${event.fact.result?.includes('ENOENT') ? 'stopping' : event.fact.failed ? 'failed' : event.fact.changed ? 'wrote' : 'ok'}` : 'FINISH_REQUESTED';
}

/**
 * The controller's state as far as its future depends on it: everything a guard reads, with free
 * text (reasons, problems, feedback) reduced to whether it is there. Two answers that differ only
 * in wording (two wrong decision kinds) reach the same state, so the graph stays finite and small,
 * while the event that led there keeps each answer on a path of its own.
 */
export function abstractState(snapshot: ScsSnapshot): string {
  const c = snapshot.context;
  return JSON.stringify({
    value: snapshot.value,
    status: snapshot.status,
    phase: c.phase,
    plan: c.plan?.phase_goal ?? null,
    draft: c.draft?.phase_goal ?? null,
    draftSteps: c.draft?.plan.length ?? null,
    alternatives: c.alternatives.length,
    refusal: c.refusal !== undefined,
    refusals: c.refusals,
    filesSinceReview: c.filesSinceReview,
    attempts: c.attempts,
    replans: c.replans,
    extensions: c.extensions,
    budget: c.budget,
    budgetAskedAt: c.budgetAskedAt ?? null,
    facts: c.facts.map((f) => (f.result?.includes('ENOENT') ? 's' : f.failed ? 'x' : f.changed ? 'w' : 'o')).join(''),
    phaseStart: c.phaseStart,
    sinceMonitor: c.sinceMonitor,
    trigger: c.trigger ?? null,
    decision: c.decision?.decision ?? null,
    problem: c.problem !== undefined,
    feedback: c.feedback.length,
    finishRejection: c.finishRejection !== undefined,
    blocked: c.blockedReasons.length,
  });
}

export function serializePathState(snapshot: ScsSnapshot, event: PathEvent | undefined): string {
  return `${abstractState(snapshot)}|${event ? eventKey(event) : 'init'}`;
}

type GraphOptions = NonNullable<Parameters<typeof getShortestPaths<typeof scsMachine>>[1]>;

/**
 * Past every bound by more than one step: the graph stops there. The real controller never gets
 * there (its bounds hold); a mutant that ignores a bound would otherwise have an infinite graph.
 */
export function beyondBounds(snapshot: ScsSnapshot): boolean {
  const { settings, replans, extensions, attempts, phase } = snapshot.context;
  return replans > settings.max_replans + 1 || extensions > settings.max_extensions + 1 || attempts > settings.max_committee_retries + 2 || phase > settings.max_phases + 1;
}

export function pathOptions(input: ScsInput, alphabet: AlphabetOptions = {}): GraphOptions {
  const options = { input, events: (s: ScsSnapshot) => pathEvents(s, alphabet), serializeState: serializePathState, serializeEvent: eventKey, stopWhen: beyondBounds };
  // The graph API types events as the machine's external events; invoked-actor events are internal.
  return options as unknown as GraphOptions;
}

/** The shortest path to every (state, last event) pair over the alphabet; `machine` lets a test mutate the controller. */
export function generateScsPaths(input: ScsInput, machine: typeof scsMachine = scsMachine, alphabet: AlphabetOptions = {}): ScsPath[] {
  return getShortestPaths(machine, pathOptions(input, alphabet)) as unknown as ScsPath[];
}

export const eventsKey = (steps: ScsPath['steps']): string => steps.map((s) => eventKey(s.event)).join('|');

/**
 * Paths no other path extends. The generated paths form a tree (each is a shorter one plus a step),
 * and every invariant holds on a prefix if it holds on the path, so replaying these checks them all.
 */
export function maximalPaths(paths: ScsPath[]): ScsPath[] {
  const prefixes = new Set(paths.map((p) => eventsKey(p.steps.slice(0, -1))));
  return paths.filter((p) => !prefixes.has(eventsKey(p.steps)));
}

/** A path as a line a person can read in a failure message. */
export function describePath(path: ScsPath): string {
  return path.steps
    .slice(1)
    .map((s) => `${eventKey(s.event).replace('xstate.', '').slice(0, 60)} → ${String(s.state.value)}`)
    .join(', ');
}
