import { plural } from '../view/format';
import type { SupervisionView } from './derive-supervision';
import { DECIDED_BY_LABELS, formatUsd, invocationText } from './supervision-text';
import { ShieldIcon } from '../components/Icons';
import './supervision.css';

/**
 * The run report's supervision section, once the run has ended: decisions, what the supervisor
 * cost, and every skipped item (node, item, reason, who decided), so nothing left out is silent.
 */
export function SupervisionReport({ view }: { view: SupervisionView }) {
  if (view.entries.length === 0) return null;
  const open = view.entries.filter((e) => e.verdict === undefined).length;
  return (
    <section className="card sv-report" data-testid="supervision-report" aria-label="Supervision report">
      <header className="sv-report__head">
        <h2 className="sv-report__title">
          <ShieldIcon size={16} /> Supervision
        </h2>
      </header>
      <dl className="sv-report__facts">
        <div>
          <dt>Interventions</dt>
          <dd data-testid="supervision-interventions">{view.entries.length}</dd>
        </div>
        <div>
          <dt title="Escalations the supervisor was asked about (what the workflow's max decisions counts)">Decisions</dt>
          <dd data-testid="supervision-decisions">{view.decisions}</dd>
        </div>
        <div>
          <dt>Supervisor cost</dt>
          <dd data-testid="supervision-cost">{formatUsd(view.cost_usd)}</dd>
        </div>
        <div>
          <dt>Skipped</dt>
          <dd data-testid="supervision-skip-count">{view.skips.length}</dd>
        </div>
      </dl>
      {open > 0 && <p className="muted">{plural(open, 'escalation')} ended without a verdict (the run stopped while the supervisor decided).</p>}
      {view.skips.length > 0 && (
        <>
          <h3 className="run-setup__heading">Skipped — left out of the run’s results</h3>
          <ul className="sv-report__skips" data-testid="supervision-skips">
            {view.skips.map((s, i) => (
              <li key={i} className="sv-entry chip--escalated" data-testid="supervision-skip" data-node={s.node}>
                <div className="sv-entry__line">
                  <strong>{invocationText(s.node, s.lineage)}</strong>
                  <span className="muted">· decided by {DECIDED_BY_LABELS[s.decided_by]}</span>
                </div>
                {s.reason && <p className="sv-entry__detail">“{s.reason}”</p>}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
