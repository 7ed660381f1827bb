import { useLiveQuery } from 'dexie-react-hooks';
import { useHost } from '../app/HostProvider';
import { navigate, routeHref, type Route } from '../app/routing';
import type { RunRow } from '../db/db';
import { workflowRunSummary } from './run/run-nodes';
import { StatusBadge } from '../components/Chip';
import { formatDateTime, formatDuration } from '../view/format';

/** A workflow run opens on its nodes, an agent run on its rounds. */
function runRoute(run: RunRow): Route {
  return { name: 'run', runId: run.run_id, tab: run.workflow ? 'nodes' : 'rounds' };
}

export function RunsScreen() {
  const { db } = useHost();
  const runs = useLiveQuery(() => db.runs.orderBy('started_at').reverse().toArray(), [db]);

  return (
    <div className="page">
      <header className="page__head">
        <div>
          <h1 className="page__title">Runs</h1>
          <p className="page__subtitle">Every run’s trace is kept in this browser’s storage: what each model proposed, and what was actually done.</p>
        </div>
      </header>
      {runs === undefined ? (
        <p className="muted">Loading…</p>
      ) : runs.length === 0 ? (
        <div className="empty" data-testid="runs-empty">
          <h2>No runs yet</h2>
          <p>
            Start one from <a href={routeHref({ name: 'workflows' })}>Workflows</a>.
          </p>
        </div>
      ) : (
        <div className="card table-wrap">
          <table className="table" data-testid="runs-list">
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Workflow</th>
                <th scope="col">Started</th>
                <th scope="col" className="num">
                  Rounds
                </th>
                <th scope="col" className="num">
                  Events
                </th>
                <th scope="col">Models</th>
                <th scope="col" className="num">
                  Took
                </th>
              </tr>
            </thead>
            <tbody>
              {runs.map((run) => (
                <tr key={run.run_id} className="table__row" data-testid="run-row" data-run-id={run.run_id} data-kind={run.workflow ? 'workflow' : 'agent'} onClick={() => navigate(runRoute(run))}>
                  <td>
                    <StatusBadge status={run.status} />
                  </td>
                  <td>
                    <a href={routeHref(runRoute(run))} onClick={(e) => e.stopPropagation()}>
                      {run.spec_name}
                    </a>
                    {run.workflow ? (
                      <span className="muted" data-testid="run-row-nodes">
                        {' '}
                        · {workflowRunSummary(run.workflow, run.status)}
                      </span>
                    ) : (
                      <>
                        {!run.supervision_enabled && <span className="muted"> · unsupervised</span>}
                        {run.dry_run && <span className="muted"> · dry run</span>}
                        {run.phase !== undefined && run.supervision_enabled && <span className="muted"> · phase {run.phase}</span>}
                      </>
                    )}
                  </td>
                  <td className="nowrap">{formatDateTime(run.started_at)}</td>
                  <td className="num">{run.rounds}</td>
                  <td className="num">{run.event_count !== undefined && run.event_count !== run.stored_events ? `${run.stored_events}/${run.event_count}` : run.stored_events}</td>
                  <td>
                    <code className="muted">{run.models.student}</code>
                    <span className="muted"> / </span>
                    <code className="muted">{run.models.teacher}</code>
                  </td>
                  <td className="num nowrap">{formatDuration(run.started_at, run.finished_at) ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
