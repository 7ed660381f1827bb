import type { RoundComparison } from '@shared/replay/compare-runs';
import { describeDifference } from '@shared/replay/describe-difference';
import { roundNumber } from '@shared/contracts/round-number';

/** The differences block `steward replay` ends with. `rounds`: how many rounds either run has. */
export function formatDifferences(differences: readonly RoundComparison[], rounds: number): string {
  if (differences.length === 0) return `differences from the recorded run: none (${rounds} rounds, the same decisions)`;
  return [`differences from the recorded run: ${differences.length} of ${rounds} rounds`, ...differences.map((d) => `  round ${roundNumber(d.round)}: ${describeDifference(d)}`)].join('\n');
}
