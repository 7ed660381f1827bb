import { routeHref } from '../../app/routing';

/** A run id neither the host's history nor this browser knows (a stale link, a deleted run). */
export function RunNotFound({ runId }: { runId: string }) {
  return (
    <div className="page page--run" data-testid="run-not-found">
      <header className="run-head">
        <div className="run-head__title">
          <a className="crumb" href={routeHref({ name: 'runs' })}>
            Runs
          </a>
          <h1 className="page__title">No such run</h1>
        </div>
      </header>
      <div className="empty">
        <h2>
          The host’s history has no run <code>{runId}</code>
        </h2>
        <p>
          It may have been deleted, from another window or by a trace profile’s retention, or the link is from another Steward. Find the run in <a href={routeHref({ name: 'runs' })}>Runs</a>, or
          import its trace there.
        </p>
      </div>
    </div>
  );
}
