import type { SnapshotFrom } from 'xstate';
import { getShortestPaths, type StatePath } from 'xstate/graph';
import type { AuthorizationFacts } from '../authorization';
import { boundaryMachine, type BoundaryEvent, type BoundaryInput } from '../machine';
import type { ModelReply } from '../../contracts/model';
import type { ToolExecution } from '../../contracts/round';
import {
  PROPOSALS,
  VERDICTS,
  executionOf,
  facts,
  replaceReply,
  IDEMPOTENCY_KEY,
  type ProposalName,
  type ReplacementName,
} from './fixtures';

/**
 * The event alphabet for generating boundary paths with `xstate/graph`: for each state, what each
 * host effect could answer (a reply, facts, a result, or a failure) and a user's CANCEL. Events for
 * invoked actors are the ones XState itself sends: `xstate.done.actor.<id>` / `xstate.error.actor.<id>`.
 */

export const EFFECTS = ['propose', 'review', 'authorize', 'commit', 'execute', 'deliver'] as const;
export type EffectName = (typeof EFFECTS)[number];

export type PathEvent =
  | BoundaryEvent
  | { type: `xstate.done.actor.${EffectName}`; output: unknown }
  | { type: `xstate.error.actor.${EffectName}`; error: Error };

export type BoundarySnapshot = SnapshotFrom<typeof boundaryMachine>;
export type BoundaryPath = StatePath<BoundarySnapshot, PathEvent>;

const done = (effect: EffectName, output: unknown): PathEvent => ({ type: `xstate.done.actor.${effect}`, output });
const error = (effect: EffectName, message: string): PathEvent => ({ type: `xstate.error.actor.${effect}`, error: new Error(message) });
/** A 2026-07-28 server asked for input mid-call (issue 30): the host pauses the call, marked so; the round ends waiting for the person. */
const inputRequired = (): PathEvent => ({ type: 'xstate.error.actor.execute', error: Object.assign(new Error('the server asked for input'), { inputRequired: true }) });
const CANCEL: PathEvent = { type: 'CANCEL', reason: 'user pressed stop' };

/** Narrows the alphabet, e.g. to the one proposal a mutation test is about. */
export interface AlphabetOptions {
  proposals?: readonly ProposalName[];
}

export function proposalNames(input: BoundaryInput, options: AlphabetOptions = {}): ProposalName[] {
  if (options.proposals) return [...options.proposals];
  const offered = new Set(input.snapshot.tools.map((t) => t.name));
  const base: ProposalName[] = ['read', 'write', 'write_bad_args', 'unoffered', 'parallel', 'unparseable', 'complete'];
  return [...base, ...(['send_email', 'open_vault'] as const).filter((n) => offered.has(n))];
}

/** Valid and invalid replacements; the second attempt uses a smaller set so paths stay countable. */
function replacementNames(input: BoundaryInput, attempt: number): ReplacementName[] {
  if (attempt > 1) return ['write', 'unoffered'];
  const offered = new Set(input.snapshot.tools.map((t) => t.name));
  const extra: ReplacementName[] = offered.has('send_email') ? ['send_email'] : [];
  return ['read', 'write', 'ask', ...extra, 'bad_args', 'unoffered', 'parallel'];
}

function verdictReplies(input: BoundaryInput, attempt: number): ModelReply[] {
  return [
    VERDICTS.accept,
    ...replacementNames(input, attempt).map(replaceReply),
    VERDICTS.block,
    VERDICTS.escalate,
    VERDICTS.malformed,
  ];
}

function factsFor(snapshot: BoundarySnapshot): AuthorizationFacts[] {
  const selected = snapshot.context.selected;
  if (selected?.decision.decision_type !== 'tool_call') return [facts('new', 'not_needed', undefined)];
  const base = [
    facts('new', 'not_needed'),
    facts('executed', 'not_needed'),
    facts('in_flight', 'not_needed'),
    facts('new', 'not_needed', undefined),
    // Made before a stop cut its node off, its result kept: given again, never called.
    { ...facts('executed', 'not_needed'), result_kept: true as const },
  ];
  if (!selected.tool?.effect.requires_user_confirmation) return base;
  return [...base, facts('new', 'denied'), facts('new', 'unavailable'), facts('new', 'pending'), facts('new', 'granted'), facts('executed', 'granted')];
}

function executionsFor(snapshot: BoundarySnapshot): ToolExecution[] {
  const selected = snapshot.context.selected;
  const key = snapshot.context.authorization?.ok ? (snapshot.context.authorization.idempotency_key ?? IDEMPOTENCY_KEY) : IDEMPOTENCY_KEY;
  if (!selected?.tool) return [];
  return [
    executionOf(selected.decision, selected.tool, key, { is_error: false }),
    executionOf(selected.decision, selected.tool, key, { is_error: true }),
  ];
}

/** Every event the boundary could receive in this snapshot, as its host could produce it. */
export function pathEvents(input: BoundaryInput, options: AlphabetOptions = {}): (snapshot: BoundarySnapshot) => PathEvent[] {
  return (snapshot) => {
    if (snapshot.status !== 'active') return [];
    switch (snapshot.value) {
      case 'proposing':
        return [
          ...proposalNames(input, options).map((n) => done('propose', PROPOSALS[n])),
          error('propose', 'connection refused'),
          CANCEL,
        ];
      case 'repairing':
        // The student's repair: a valid decision, the same mistake again, or a failure.
        return [done('propose', PROPOSALS.read), done('propose', PROPOSALS.unparseable), error('propose', 'connection refused'), CANCEL];
      case 'reviewing': {
        const attempt = snapshot.context.attempts.length + 1;
        return [
          ...verdictReplies(input, attempt).map((r) => done('review', r)),
          error('review', 'teacher timed out'),
          ...(attempt === 1 ? [CANCEL] : []),
        ];
      }
      case 'authorizing':
        return [...factsFor(snapshot).map((f) => done('authorize', f)), error('authorize', 'ledger unreadable'), CANCEL];
      case 'committing':
        return [done('commit', { history_index: 4 }), error('commit', 'history store is read-only')];
      case 'executing':
        return [...executionsFor(snapshot).map((x) => done('execute', x)), error('execute', 'server crashed'), inputRequired()];
      case 'delivering':
        return [done('deliver', undefined), error('deliver', 'renderer went away')];
      default:
        // Transient states (validating, judging, …) resolve by eventless transitions; finals take nothing.
        return [];
    }
  };
}

/**
 * Snapshots are keyed by value, context and the event that led there, so two host answers that
 * leave the same context (ledger `executed` vs `in_flight`) stay separate paths. The context
 * records everything that happened, so the state space is a tree: its shortest paths to final
 * states are exactly its simple paths, found in linear rather than quadratic time.
 */
export function serializePathState(snapshot: BoundarySnapshot, event: PathEvent | undefined): string {
  // The input's snapshot, supervision and constraints never change within a round: leave them out.
  const { snapshot: _tools, supervision: _supervision, constraints: _constraints, ...varying } = snapshot.context;
  return JSON.stringify({ value: snapshot.value, status: snapshot.status, context: varying, via: event ?? null });
}

type GraphOptions = NonNullable<Parameters<typeof getShortestPaths<typeof boundaryMachine>>[1]>;

/** The options for `getShortestPaths`/`getSimplePaths` over this alphabet, ending at final states. */
export function pathOptions(input: BoundaryInput, alphabet: AlphabetOptions = {}): GraphOptions {
  const options = {
    input,
    events: pathEvents(input, alphabet),
    serializeState: serializePathState,
    toState: (s: BoundarySnapshot) => s.status === 'done',
  };
  // The graph API types events as the machine's external events; invoked-actor events are internal.
  return options as unknown as GraphOptions;
}

/** Every path to a final state over this alphabet; `machine` lets a test mutate the boundary. */
export function generateBoundaryPaths(
  input: BoundaryInput,
  machine: typeof boundaryMachine = boundaryMachine,
  alphabet: AlphabetOptions = {},
): BoundaryPath[] {
  return getShortestPaths(machine, pathOptions(input, alphabet)) as unknown as BoundaryPath[];
}
