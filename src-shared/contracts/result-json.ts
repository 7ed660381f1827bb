import type { HistoryEntry } from './history';
import type { Intervention } from './intervention';
import type { RoundRecord } from './round';
import { roundNumber } from './round-number';
import type { RoundComparison } from '../replay/compare-runs';
import type { NodeDifference } from '../replay/compare-workflow-runs';

/**
 * A run's result as `--json` prints it: every round numbered from 1, as trace files (format 2), the
 * CLI's lines and the app number it. The records keep the index from 0 (round-number.ts); this is
 * the one place the printed object is renumbered, so a script reading `rounds[0].round` and a person
 * reading "round 1" mean the same round.
 */
export function resultJson<T extends { rounds: readonly RoundRecord[]; history: readonly HistoryEntry[]; intervention?: Intervention | undefined }>(result: T): T {
  return {
    ...result,
    rounds: result.rounds.map((r) => ({ ...r, round: roundNumber(r.round) })),
    history: result.history.map((h) => ({ ...h, round: roundNumber(h.round) })),
    ...(result.intervention ? { intervention: { ...result.intervention, round: roundNumber(result.intervention.round) } } : {}),
  };
}

/** `steward replay --json`'s differences, rounds numbered from 1 like the rest of the object. */
export function differencesJson(differences: readonly RoundComparison[]): RoundComparison[] {
  return differences.map((d): RoundComparison => {
    const round = roundNumber(d.round);
    switch (d.kind) {
      case 'same':
        return { ...d, round };
      case 'differs':
        return { ...d, round, recorded: { ...d.recorded, round }, replayed: { ...d.replayed, round } };
      case 'only_recorded':
        return { ...d, round, recorded: { ...d.recorded, round } };
      case 'only_replayed':
        return { ...d, round, replayed: { ...d.replayed, round } };
    }
  });
}

/** A workflow run's waiting interventions as `--json` prints them: an agent node's round from 1. */
export function interventionsJson(interventions: ReadonlyArray<{ invocation_id: string; intervention: Intervention }>): Array<{ invocation_id: string; intervention: Intervention }> {
  return interventions.map((w) => ({ ...w, intervention: { ...w.intervention, round: roundNumber(w.intervention.round) } }));
}

/** `steward replay --json` of a workflow: each node's differing rounds numbered from 1. */
export function nodeDifferencesJson(differences: readonly NodeDifference[]): NodeDifference[] {
  return differences.map((d) => (d.kind === 'round' ? { ...d, comparison: differencesJson([d.comparison])[0] ?? d.comparison } : d));
}
