import { DECISION_FIELD_LABELS, type RoundComparison } from '@shared/replay/compare-runs';
import type { RoundDecisions } from '@shared/replay/round-decisions';

function shown(value: string | boolean | undefined): string {
  if (value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return value.length > 60 ? `${value.slice(0, 57)}…` : value;
}

function decided(d: RoundDecisions): string {
  return [d.tool, d.outcome].filter((v) => v !== undefined).join(', ') || 'nothing decided';
}

/** One line per round whose decisions differ between the recorded run and its replay. */
export function formatDifference(c: RoundComparison): string {
  switch (c.kind) {
    case 'same':
      return `round ${c.round}: the same decisions`;
    case 'differs':
      return `round ${c.round}: ${c.fields.map((f) => `${DECISION_FIELD_LABELS[f]} ${shown(c.recorded[f])} → ${shown(c.replayed[f])}`).join(' · ')}`;
    case 'only_recorded':
      return `round ${c.round}: only in the recorded run (${decided(c.recorded)})`;
    case 'only_replayed':
      return `round ${c.round}: only in the replay (${decided(c.replayed)})`;
  }
}

/** The differences block `steward replay` ends with. `rounds`: how many rounds either run has. */
export function formatDifferences(differences: readonly RoundComparison[], rounds: number): string {
  if (differences.length === 0) return `differences from the recorded run: none (${rounds} rounds, the same decisions)`;
  return [`differences from the recorded run: ${differences.length} of ${rounds} rounds`, ...differences.map((d) => `  ${formatDifference(d)}`)].join('\n');
}
