import type { EffectClass } from '../contracts/tool-effect';

/**
 * Which failed node attempts may run again (seed 004 §5.3: `retrySafe` is an opt-in, unknown means
 * unsafe). The host gathers the facts of the attempt; the rule is here, once, for every node kind.
 * A retry is safe when running the node again repeats no effect: it changed and created nothing.
 * The allowed set checks what the attempt spent (measured, or unknown) and created on top.
 */
export type AttemptFacts =
  /** A template or an assert: pure, its output is a function of its inputs. */
  | { kind: 'pure' }
  /** A tool node: its tool's effective effect (the workflow's own setting, else Steward's metadata); undefined when not known. */
  | { kind: 'tool'; effect: EffectClass | undefined }
  /**
   * An agent node: the effective effect of every tool it was offered in the attempt (undefined when
   * the attempt never listed its tools, so what it might have called is not known). What its model
   * calls cost is measured (cost.ts `attemptSpend`) and judged by the allowed set, not here.
   */
  | { kind: 'agent'; offered: readonly EffectClass[] | undefined }
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
      return facts.offered !== undefined && facts.offered.every((e) => e === 'read');
    case 'other':
      return false;
  }
}
