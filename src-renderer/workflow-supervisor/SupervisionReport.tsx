import { plural } from '../view/format';
import type { SupervisionView } from './derive-supervision';
import { invocationText } from '@shared/workflow/invocation-text';
import { DECIDED_BY_LABELS, SUPERVISOR_ACTION_LABELS } from '@shared/supervisor/contracts';
import { MEMORY_LIMIT } from '@shared/supervisor/ledger';
import { formatUsd } from './supervision-text';
import { ShieldIcon } from '../components/Icons';
import { ACTION_TONES } from './SupervisorBadges';
import './supervision.css';

/**
 * The run report's supervision section, once the run has ended: decisions, what the supervisor
 * cost, every skipped item (node, item, reason, who decided), so nothing left out is silent, and
 * the supervisor's decisions with their one-line rationales — what its prompt recalled at each
 * next decision. An answer it gave that could not be used is one click away under its verdict.
 */
export function SupervisionReport({ view }: { view: SupervisionView }) {
  if (view.entries.length === 0) return null;
  const open = view.entries.filter((e) => e.verdict === undefined).length;
  const asked = view.entries.filter((e) => (e.verdict?.turns ?? 0) > 0);
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
      {asked.length > 0 && (
        <>
          <h3 className="run-setup__heading">The supervisor’s decisions</h3>
          <p className="muted">In order, with its reasons. Each new decision’s prompt recalls the last {MEMORY_LIMIT} of them.</p>
          <ol className="sv-report__skips" data-testid="supervision-memory">
            {asked.map((e) => {
              const v = e.verdict;
              if (!v) return null;
              return (
                <li key={e.escalation_id} className={`sv-entry chip--${ACTION_TONES[v.verdict.action]}`} data-testid="supervision-decision" data-node={e.node} data-action={v.verdict.action} data-decided-by={v.decided_by}>
                  <div className="sv-entry__line">
                    <strong>{invocationText(e.node, e.lineage)}</strong>
                    <span>→ {SUPERVISOR_ACTION_LABELS[v.verdict.action]}</span>
                    <span className="muted">· decided by {DECIDED_BY_LABELS[v.decided_by]}</span>
                  </div>
                  {v.verdict.reason && <p className="sv-entry__detail">“{v.verdict.reason}”</p>}
                  {v.malformed && (
                    <details className="result" data-testid="supervision-malformed">
                      <summary>What the supervisor answered</summary>
                      <p className="sv-entry__detail">
                        {v.malformed.problem}
                        {v.malformed.repairs > 0 ? ` (after ${plural(v.malformed.repairs, 'repair round')})` : ''}
                      </p>
                      <pre className="code">{v.malformed.answer}</pre>
                    </details>
                  )}
                </li>
              );
            })}
          </ol>
        </>
      )}
    </section>
  );
}
