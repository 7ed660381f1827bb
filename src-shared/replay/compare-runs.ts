import { z } from 'zod';
import type { RunEvent } from '../contracts/events';
import { RoundDecisions, roundDecisions } from './round-decisions';

/** The fields of a round's decisions two runs are compared on, in the order they are shown. */
export const DECISION_FIELDS = ['proposer', 'tool', 'arguments', 'verdict', 'authorization', 'executed', 'outcome'] as const;
export const DecisionField = z.enum(DECISION_FIELDS);
export type DecisionField = z.infer<typeof DecisionField>;

export const DECISION_FIELD_LABELS = {
  proposer: 'proposer',
  tool: 'tool',
  arguments: 'arguments',
  verdict: 'verdict',
  authorization: 'authorization',
  executed: 'executed or not',
  outcome: 'outcome',
} satisfies Record<DecisionField, string>;

/** One round of two runs: the same decisions, different ones (which fields), or a round only one run has. */
export const RoundComparison = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('same'), round: z.number().int().nonnegative() }).strict(),
  z
    .object({
      kind: z.literal('differs'),
      round: z.number().int().nonnegative(),
      fields: z.array(DecisionField).min(1),
      recorded: RoundDecisions,
      replayed: RoundDecisions,
    })
    .strict(),
  z.object({ kind: z.literal('only_recorded'), round: z.number().int().nonnegative(), recorded: RoundDecisions }).strict(),
  z.object({ kind: z.literal('only_replayed'), round: z.number().int().nonnegative(), replayed: RoundDecisions }).strict(),
]);
export type RoundComparison = z.infer<typeof RoundComparison>;

/** The fields whose values differ between two rounds' decisions. */
export function differingFields(a: RoundDecisions, b: RoundDecisions): DecisionField[] {
  return DECISION_FIELDS.filter((field) => a[field] !== b[field]);
}

/** Two runs' decisions round by round, in round order (every round either run has). */
export function compareDecisions(recorded: readonly RoundDecisions[], replayed: readonly RoundDecisions[]): RoundComparison[] {
  const a = new Map(recorded.map((r) => [r.round, r]));
  const b = new Map(replayed.map((r) => [r.round, r]));
  const rounds = [...new Set([...a.keys(), ...b.keys()])].sort((x, y) => x - y);
  return rounds.map((round): RoundComparison => {
    const left = a.get(round);
    const right = b.get(round);
    if (left && right) {
      const fields = differingFields(left, right);
      return fields.length === 0 ? { kind: 'same', round } : { kind: 'differs', round, fields, recorded: left, replayed: right };
    }
    // The round comes from one of the two maps, so exactly one side is there.
    return left ? { kind: 'only_recorded', round, recorded: left } : { kind: 'only_replayed', round, replayed: right as RoundDecisions };
  });
}

/** Two runs' events compared; only the rounds that are not the same. */
export function runDifferences(recorded: readonly RunEvent[], replayed: readonly RunEvent[]): RoundComparison[] {
  return compareDecisions(roundDecisions(recorded), roundDecisions(replayed)).filter((c) => c.kind !== 'same');
}
