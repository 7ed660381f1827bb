import type { SupervisorAction } from '@shared/supervisor/contracts';
import type { NodeSupervision } from './derive-supervision';
import { nodeBadges } from './supervision-text';
import { ShieldIcon } from '../components/Icons';
import './supervision.css';

/** Verdict colours: a recovery (retry, substitute) is calm, a skip or an ended stream a warning, a fail a failure. */
export const ACTION_TONES = {
  retry: 'delivered',
  substitute: 'replaced',
  skip: 'escalated',
  end_stream: 'escalated',
  fail: 'failed',
} satisfies Record<SupervisorAction, string>;

/**
 * On a node of the run's graph: "⛨ deciding…" while an escalation waits for its verdict, and a
 * shield badge per verdict action, who decided it in the tooltip and the accessible name.
 */
export function SupervisorBadges({ nodeId, supervision }: { nodeId: string; supervision?: NodeSupervision }) {
  const { deciding, person, badges } = nodeBadges(supervision);
  if (!deciding && badges.length === 0) return null;
  return (
    <ul className="sv-badges" aria-label="Supervisor" data-testid={`supervisor-badges-${nodeId}`}>
      {deciding && (
        <li
          className="sv-badge sv-badge--deciding"
          data-testid={`supervisor-deciding-${nodeId}`}
          data-person={person || undefined}
          title={person ? 'This node failed: it waits for your verdict (Waiting for you)' : 'The supervisor is deciding what happens to this node'}
          aria-label={person ? 'Waiting for your verdict' : 'Supervisor deciding'}
        >
          <ShieldIcon size={12} /> {person ? 'your verdict…' : 'deciding…'}
        </li>
      )}
      {badges.map((b) => (
        <li key={b.action} className={`sv-badge chip--${ACTION_TONES[b.action]}`} data-testid={`supervisor-badge-${nodeId}`} data-action={b.action} title={b.label} aria-label={b.label}>
          <ShieldIcon size={12} /> {b.text}
        </li>
      ))}
    </ul>
  );
}
