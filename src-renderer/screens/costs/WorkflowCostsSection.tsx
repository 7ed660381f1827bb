import { useEffect, useState } from 'react';
import { COST_COLUMNS, CostTableHead } from './CostTableHead';
import { durationText, tokensText, usdText } from '@shared/accounting/cost-words';
import type { WorkflowCost } from '@shared/accounting/workflow-cost';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import './costs.css';

const PERIODS = [
  { days: 1, label: 'Last 24 hours' },
  { days: 7, label: 'Last 7 days' },
  { days: 30, label: 'Last 30 days' },
  { days: 365, label: 'Last 12 months' },
] as const;

type Loaded = { workflows: WorkflowCost[]; runs: number; truncated: boolean };

/**
 * What supervision cost per workflow over a period (issue 31): the host adds up the runs its
 * history holds that started in the period, priced with the price list in Settings.
 */
export function WorkflowCostsSection() {
  const { client, connection } = useHost();
  const [days, setDays] = useState<number>(30);
  const [loaded, setLoaded] = useState<Loaded>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    if (connection !== 'open') return;
    let live = true;
    const since = new Date(Date.now() - days * 86_400_000).toISOString();
    client
      .request('costs.by_workflow', { since })
      .then((got) => {
        if (!live) return;
        setLoaded(got);
        setError(undefined);
      })
      .catch((err: unknown) => live && setError(err instanceof Error ? err.message : String(err)));
    return () => {
      live = false;
    };
  }, [client, connection, days]);

  return (
    <section aria-labelledby="workflow-costs-title" className="learning-section" data-testid="workflow-costs">
      <div className="section-head workflow-costs__head">
        <h2 id="workflow-costs-title" className="section-head__title">
          What supervision cost
        </h2>
        <label className="muted">
          Period{' '}
          <select className="input" value={days} onChange={(e) => setDays(Number(e.target.value))} data-testid="workflow-costs-period">
            {PERIODS.map((p) => (
              <option key={p.days} value={p.days}>
                {p.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p className="muted section-intro">
        Per workflow, its runs’ teacher, monitor, judge and supervisor calls: tokens, dollars at the prices in <a href={routeHref({ name: 'settings' })}>Settings</a>, and how long runs waited
        for a person. “≥” means some calls were not recorded or have no price.
      </p>
      {error ? (
        <p className="error" role="alert">
          Could not add up the costs: {error}
        </p>
      ) : !loaded ? (
        <p className="muted">Adding up…</p>
      ) : loaded.workflows.length === 0 ? (
        <p className="muted" data-testid="workflow-costs-empty">
          No run started in this period.
        </p>
      ) : (
        <div className="card table-wrap">
          <table className="table table--compact" data-testid="workflow-costs-table">
            <CostTableHead names={['Workflow']} figures={['Runs', 'Supervision calls', ...COST_COLUMNS, 'Waited for a person', 'Interventions']} />
            <tbody>
              {loaded.workflows.map((w) => (
                <tr key={w.workflow_id} data-testid="workflow-cost-row" data-workflow={w.workflow_id}>
                  <td>{w.name}</td>
                  <td className="num">{w.runs}</td>
                  <td className="num">{w.supervision.calls}</td>
                  <td className="num">{w.supervision.calls === 0 ? '—' : tokensText(w.supervision)}</td>
                  <td className="num" data-testid="workflow-cost-usd">
                    {w.supervision.calls === 0 ? '—' : usdText(w.supervision)}
                  </td>
                  <td className="num">{w.supervision.recorded_calls === 0 ? '—' : durationText(w.supervision.latency_ms)}</td>
                  <td className="num">{w.person_waited_ms > 0 ? durationText(w.person_waited_ms) : '—'}</td>
                  <td className="num">{w.interventions}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {loaded.truncated && <p className="muted">More runs started in this period than are added up at once: these totals cover the newest {loaded.runs}.</p>}
        </div>
      )}
    </section>
  );
}
