import type { RunRow } from '../../db/db';
import { routeHref } from '../../app/routing';
import { StatusBadge } from '../../components/Chip';
import { formatDateTime } from '../../view/format';
import { runTags } from '../runs/run-tags';
import { RECENT_RUNS } from './recent-runs';

/** A workflow's latest runs, newest first (`runs` undefined while loading). */
export function RecentRuns({ runs }: { runs: RunRow[] | undefined }) {
  if (runs === undefined) return <p className="muted">Loading…</p>;
  if (runs.length === 0) return <p className="muted">No runs yet.</p>;
  return (
    <ul className="plain-list recent-runs" data-testid="workflow-runs">
      {runs.slice(0, RECENT_RUNS).map((r) => (
        <li key={r.run_id}>
          <a href={routeHref({ name: 'run', runId: r.run_id, tab: 'rounds' })}>
            <StatusBadge status={r.status} supervised={r.workflow?.supervised} partial={r.partial} /> <span className="muted">{formatDateTime(r.started_at)}</span>
            {runTags(r).map((tag) => (
              <span key={tag} className="muted">
                {' '}
                · {tag}
              </span>
            ))}
          </a>
        </li>
      ))}
    </ul>
  );
}
