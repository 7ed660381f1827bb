import { useMemo } from 'react';
import type { RunEvent } from '@shared/contracts/events';
import { durationText, tokensText, usdText } from '@shared/accounting/cost-words';
import { INTERVENTION_COUNT_LABELS, ROLE_LABELS, runCostOfEvents, type InterventionCountKind } from '@shared/accounting/run-cost';
import { routeHref } from '../../app/routing';
import { usePriceList } from './use-price-list';
import { COST_COLUMNS, CostTableHead } from './CostTableHead';
import { MessageText } from '../run/MessageText';
import './costs.css';

/**
 * The run report's "What supervision cost" (issue 31): supervision's calls, tokens and dollars by
 * role, the time its calls added, the minutes the run waited for a person, and what stepped in.
 * From the run's own events, priced with the app's price list (Settings).
 */
export function RunCostPanel({ events }: { events: readonly RunEvent[] }) {
  const { prices, problem } = usePriceList();
  const cost = useMemo(() => runCostOfEvents(events, prices), [events, prices]);
  const interventions = Object.entries(cost.interventions) as Array<[InterventionCountKind, number]>;
  if (cost.total.calls === 0 && cost.person.asks === 0 && interventions.length === 0) return null;
  const s = cost.supervision;
  const summary =
    s.calls === 0
      ? 'No supervision model was called.'
      : `${s.calls} supervision call${s.calls === 1 ? '' : 's'} · ${usdText(s)} · ${tokensText(s)} · added ${s.recorded_calls === 0 ? 'time not recorded' : durationText(cost.supervision_latency_ms)}`;
  return (
    // Open where supervision models were called; closed (one line) where only a person stepped in.
    <details className="card run-cost" data-testid="run-cost" open={s.calls > 0}>
      <summary className="run-cost__summary">
        <strong>What supervision cost</strong> <span data-testid="run-cost-summary">{summary}</span>
        {cost.person.asks > 0 && (
          <span data-testid="run-cost-waited">
            {' '}
            · waited {durationText(cost.person.waited_ms)} for a person{cost.person.waiting ? ' (still waiting)' : ''}
          </span>
        )}
      </summary>
      {cost.roles.length > 0 && (
        <table className="table table--compact" data-testid="run-cost-roles">
          <CostTableHead names={['Who', 'Models']} figures={['Calls', ...COST_COLUMNS]} />
          <tbody>
            {cost.roles.map((r) => (
              <tr key={r.role} data-testid="run-cost-role" data-role={r.role}>
                <td>{ROLE_LABELS[r.role]}</td>
                <td>
                  <code className="muted">{r.models.join(', ')}</code>
                </td>
                <td className="num">{r.calls}</td>
                <td className="num">{tokensText(r)}</td>
                <td className="num" data-testid="run-cost-usd">
                  {usdText(r)}
                </td>
                <td className="num">{r.recorded_calls === 0 ? 'not recorded' : durationText(r.latency_ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {interventions.length > 0 && (
        <ul className="run-cost__interventions" data-testid="run-cost-interventions">
          {interventions.map(([kind, n]) => (
            <li key={kind}>
              {INTERVENTION_COUNT_LABELS[kind]}: <strong>{n}</strong>
            </li>
          ))}
        </ul>
      )}
      <p className="muted run-cost__note">
        {problem && (
          <>
            <MessageText text={problem} />{' '}
          </>
        )}
        Priced with the price list in <a href={routeHref({ name: 'settings' })}>Settings</a>; models on this machine cost $0 unless priced there.
        {cost.roles.some((r) => r.recorded_calls < r.calls) && ' “not recorded”: the run was recorded before Steward kept each call’s tokens.'}
      </p>
    </details>
  );
}
