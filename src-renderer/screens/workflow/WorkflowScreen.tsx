import { useLiveQuery } from 'dexie-react-hooks';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import { Chip } from '../../components/Chip';
import { Spinner } from '../../components/Icons';
import { useRunAndOpen, useWorkflowConfig } from '../../supervision/use-workflow-config';
import { SupervisionPanel } from './SupervisionPanel';
import { serverIdentity } from '../../db/registry';
import { RecentRuns } from './RecentRuns';
import { recentRunsOf } from './recent-runs';

/** `#/workflows/<id>`: the workflow, its recent runs, and its Supervision & Learning panel. */
export function WorkflowScreen({ workflowId }: { workflowId: string }) {
  const { db, connection } = useHost();
  const row = useLiveQuery(() => db.workflows.get(workflowId).then((r) => r ?? null), [db, workflowId]);
  const config = useWorkflowConfig(row ?? undefined);
  const runs = useLiveQuery(() => recentRunsOf(db, workflowId), [db, workflowId]);
  const { run: runAndOpen, starting, error } = useRunAndOpen();

  if (row === undefined) {
    return (
      <div className="page">
        <p className="muted">
          <Spinner /> Loading…
        </p>
      </div>
    );
  }
  if (row === null) {
    return (
      <div className="page">
        <div className="empty" data-testid="workflow-missing">
          <h2>No workflow “{workflowId}”</h2>
          <p>
            It is not in this browser’s workspace. Back to <a href={routeHref({ name: 'workflows' })}>Workflows</a>.
          </p>
        </div>
      </div>
    );
  }

  const run = () => runAndOpen(row, config);

  return (
    <div className="page page--workflow" data-testid="workflow-page" data-workflow-id={row.id}>
      <header className="run-head">
        <div className="run-head__title">
          <a className="crumb" href={routeHref({ name: 'workflows' })}>
            Workflows
          </a>
          <h1 className="page__title">{row.name}</h1>
          {row.source === 'demo' && <Chip tone="accent">Demo</Chip>}
          <span className="round__spacer" />
          <button type="button" className="button button--primary" data-testid="workflow-run-button" disabled={starting || !config || connection !== 'open'} onClick={() => void run()}>
            {starting ? <Spinner /> : <span aria-hidden="true">▶</span>}
            {starting ? 'Starting…' : 'Run'}
          </button>
        </div>
        {row.doc.description && <p className="page__subtitle">{row.doc.description}</p>}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
      </header>

      <div className="workflow-layout">
        <div className="workflow-layout__main">{config ? <SupervisionPanel row={row} config={config} /> : <p className="muted">Loading profiles…</p>}</div>
        <aside className="workflow-layout__side">
          <section className="card side-card" aria-labelledby="wf-task">
            <h2 id="wf-task" className="side-card__title">
              Task
            </h2>
            <p className="side-card__text">{row.doc.task}</p>
            <h3 className="side-card__subtitle">Servers</h3>
            <ul className="plain-list">
              {row.doc.servers.map((s) => (
                <li key={s.id}>
                  <code className="tag">{s.id}</code> <span className="muted">{serverIdentity(s)}</span>
                </li>
              ))}
              {row.doc.servers.length === 0 && <li className="muted">none</li>}
            </ul>
          </section>
          <section className="card side-card" aria-labelledby="wf-runs">
            <h2 id="wf-runs" className="side-card__title">
              Recent runs
            </h2>
            <RecentRuns runs={runs} />
          </section>
        </aside>
      </div>
    </div>
  );
}
