import type { SupervisorAction } from './contracts';
import { createdText } from './created-assets';

/**
 * The allowed set (seed 004 design §5): a pure function of what the kernel knows about the failed
 * invocation, computed and enforced by the kernel, never by a model. A model's verdict schema is
 * built from the same set, so a good model never sees an action it could not take; a bad one that
 * answers outside it gets `fail`, decided by the kernel.
 */
export interface InvocationFacts {
  /** The node declares that running it again has no effect beyond its output. Unknown = false. */
  retry_safe: boolean;
  spent_usd: number;
  /** Remote models the attempt called whose cost is not known (cost.ts `attemptSpend`). */
  unpriced_models?: readonly string[];
  created_assets: readonly string[];
  /** The node left a malformed output a substitute could repair. */
  has_candidate: boolean;
  /** A validator covers the node's whole declared output (every port's type checks). */
  validator_covers_output: boolean;
  /** A streaming node (it emits items as it goes). */
  streaming: boolean;
  /** A non-streaming node already delivered part of its outputs downstream before failing. */
  emitted: boolean;
  /** This invocation's retries have run out (max_retries). */
  retries_exhausted?: boolean;
}

/** Why each action is or is not allowed, in words an operator reads in the run report. */
export interface AllowedSet {
  actions: SupervisorAction[];
  refused: Partial<Record<SupervisorAction, string>>;
}

export function computeAllowedActions(f: InvocationFacts): AllowedSet {
  const refused: Partial<Record<SupervisorAction, string>> = {};
  if (f.streaming) {
    // Items already emitted went downstream: only stopping the stream there, or failing, is coherent.
    for (const a of ['retry', 'skip', 'substitute'] as const) refused[a] = 'a streaming node can only end its stream or fail';
    return { actions: ['end_stream', 'fail'], refused };
  }
  refused.end_stream = 'the node does not stream';
  if (f.emitted) {
    // Part of its output is already downstream: a retry or a substitute would deliver twice, a skip would contradict it.
    for (const a of ['retry', 'skip', 'substitute'] as const) refused[a] = 'the node already delivered part of its output';
    return { actions: ['fail'], refused };
  }
  const actions: SupervisorAction[] = [];
  // What the attempt created comes first: it says what a retry would make again (and a retry-safe declaration does not undo it).
  if (f.created_assets.length > 0) refused.retry = `the failed attempt already created something (${createdText(f.created_assets) ?? ''})`;
  else if (!f.retry_safe) refused.retry = 'the node does not declare itself safe to run again';
  else if (f.spent_usd > 0) refused.retry = `the failed attempt already cost $${f.spent_usd.toFixed(4)}`;
  // An unknown cost is not a zero one: it may have been billed, and a retry would pay it again.
  else if ((f.unpriced_models?.length ?? 0) > 0) refused.retry = `the failed attempt called ${(f.unpriced_models ?? []).join(', ')}, whose cost is not known (no price or no usage reported)`;
  else if (f.retries_exhausted === true) refused.retry = 'this invocation used all its retries';
  else actions.push('retry');
  actions.push('skip');
  if (!f.has_candidate) refused.substitute = 'the node left no output to repair';
  else if (!f.validator_covers_output) refused.substitute = 'no validator covers the whole output';
  else actions.push('substitute');
  actions.push('fail');
  return { actions, refused };
}

export function isAllowed(action: SupervisorAction, allowed: readonly SupervisorAction[]): boolean {
  return allowed.includes(action);
}
