import { DECISION_FIELD_LABELS, type RoundComparison } from './compare-runs';
import type { RoundDecisions } from './round-decisions';

function shown(value: string | boolean | undefined): string {
  if (value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return value.length > 60 ? `${value.slice(0, 57)}…` : value;
}

function decided(d: RoundDecisions): string {
  return [d.tool, d.outcome].filter((v) => v !== undefined).join(', ') || 'nothing decided';
}

/** What differs in one round, in words (the CLI and the app say it the same way): field recorded → replayed. */
export function describeDifference(c: RoundComparison): string {
  switch (c.kind) {
    case 'same':
      return 'the same decisions';
    case 'differs':
      return c.fields.map((f) => `${DECISION_FIELD_LABELS[f]} ${shown(c.recorded[f])} → ${shown(c.replayed[f])}`).join(' · ');
    case 'only_recorded':
      return `only in the recorded run (${decided(c.recorded)})`;
    case 'only_replayed':
      return `only in the replay (${decided(c.replayed)})`;
  }
}
