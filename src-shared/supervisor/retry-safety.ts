import type { EffectClass } from '../contracts/tool-effect';

/**
 * Which failed node attempts may run again (seed 004 §5.3: `retrySafe` is an opt-in, unknown means
 * unsafe). The host gathers the facts of the attempt; the rule is here, once, for every node kind.
 * A retry is safe when running the node again repeats nothing: it changed nothing, created nothing
 * and cost nothing the kernel cannot see. The allowed set still checks spent and created on top.
 */
export type AttemptFacts =
  /** A template or an assert: pure, its output is a function of its inputs. */
  | { kind: 'pure' }
  /** A tool node: its tool's effective effect (the workflow's own setting, else Steward's metadata); undefined when not known. */
  | { kind: 'tool'; effect: EffectClass | undefined }
  /**
   * An agent node: the effective effect of every tool it was offered in the attempt (undefined when
   * the attempt never listed its tools, so what it might have called is not known), and whether every
   * model call it made stayed on this machine (a call elsewhere may have cost money nobody measured).
   */
  | { kind: 'agent'; offered: readonly EffectClass[] | undefined; models_local: boolean }
  /** Anything else (a pattern node's members, a node the host cannot describe): not known to be safe. */
  | { kind: 'other' };

export function retrySafe(facts: AttemptFacts): boolean {
  switch (facts.kind) {
    case 'pure':
      return true;
    case 'tool':
      // A read that failed changed and created nothing; any write may have had its effect before failing.
      return facts.effect === 'read';
    case 'agent':
      // Only reads within reach (or no tools at all): whatever it called, calling it again changes nothing.
      return facts.models_local && facts.offered !== undefined && facts.offered.every((e) => e === 'read');
    case 'other':
      return false;
  }
}
