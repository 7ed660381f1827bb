import { DECIDED_BY_LABELS, SUPERVISOR_ACTION_LABELS } from '@shared/supervisor/contracts';
import { ShieldIcon, Spinner } from '../components/Icons';
import { routeHref } from '../app/routing';
import { plural } from '../view/format';
import type { InterventionEntry, SupervisionView } from './derive-supervision';
import { ACTION_TONES } from './SupervisorBadges';
import { invocationText } from '@shared/workflow/invocation-text';
import { formatUsd, NEXT_LABELS } from './supervision-text';
import './supervision.css';

/**
 * Every escalation of a workflow run and its verdict, in the order raised, as the events come in.
 * Appears with the first intervention; a clean run (supervised or not) shows nothing.
 */
export function InterventionFeed({ view, ended = false }: { view: SupervisionView; ended?: boolean }) {
  if (view.entries.length === 0) return null;
  return (
    <section className="card sv-feed" data-testid="intervention-feed" aria-label="Supervisor interventions">
      <header className="sv-feed__head">
        <h2 className="sv-feed__title">
          <ShieldIcon size={16} /> Supervisor interventions
        </h2>
        <span className="muted">{plural(view.entries.length, 'escalation')}</span>
      </header>
      <ol className="sv-feed__list">
        {view.entries.map((e) => (
          <FeedEntry key={e.escalation_id} entry={e} ended={ended} />
        ))}
      </ol>
    </section>
  );
}

/** `ended`: the run ended (an escalation it left undecided says so, never "deciding…"). */
function FeedEntry({ entry, ended }: { entry: InterventionEntry; ended: boolean }) {
  const v = entry.verdict;
  const x = entry.escalation;
  return (
    <li
      className={`sv-entry ${v ? `chip--${ACTION_TONES[v.verdict.action]}` : ended ? 'chip--neutral' : 'chip--running'}`}
      data-testid="intervention-entry"
      data-node={entry.node}
      data-action={v?.verdict.action ?? 'deciding'}
      data-decided-by={v?.decided_by}
    >
      <div className="sv-entry__line">
        <strong>{invocationText(entry.node, entry.lineage)}</strong>
        {x && (
          <span className="muted">
            failed{x.failure_signature.code ? ` (${x.failure_signature.code}${x.failure_signature.http_status ? ` ${x.failure_signature.http_status}` : ''})` : ''} · attempt {x.attempt} · allowed: {x.allowed_actions.join(', ')}
          </span>
        )}
      </div>
      {x && <p className="sv-entry__detail">{x.detail}</p>}
      {v ? (
        <>
          <div className="sv-entry__line" data-testid="intervention-verdict">
            <strong>{SUPERVISOR_ACTION_LABELS[v.verdict.action]}</strong>
            <span>· decided by {DECIDED_BY_LABELS[v.decided_by]}</span>
            {entry.next && <span className="muted">· the run {NEXT_LABELS[entry.next]}</span>}
            <span className="muted" title={`${plural(v.turns, 'supervisor turn')}`}>
              · cost {formatUsd(v.cost_usd)}
            </span>
          </div>
          {v.verdict.reason && <p className="sv-entry__detail">“{v.verdict.reason}”</p>}
        </>
      ) : ended ? (
        <div className="sv-entry__line" data-testid="intervention-undecided">
          <span className="muted">No verdict: the run ended before this escalation was decided.</span>
        </div>
      ) : entry.asks_person ? (
        <div className="sv-entry__line" role="status" data-testid="intervention-waiting">
          <Spinner /> Waiting for your verdict: <a href={routeHref({ name: 'interventions' })}>answer it under Waiting for you</a>
        </div>
      ) : (
        <div className="sv-entry__line" role="status">
          <Spinner /> The supervisor is deciding…
        </div>
      )}
    </li>
  );
}
