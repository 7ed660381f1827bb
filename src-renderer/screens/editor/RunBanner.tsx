import { runStatusLabel, type RunEvent } from '@shared/contracts/events';
import { routeHref } from '../../app/routing';

const LEGEND = [
  ['running', 'running'],
  ['waiting', 'waiting for you'],
  ['done', 'done'],
  ['failed', 'failed'],
  ['skipped', 'skipped'],
] as const;

/** The run shown on the graph: its state, a link to the run view, and the colours' meaning. */
export function RunBanner({ runId, finished, onDismiss }: { runId: string; finished?: Extract<RunEvent, { type: 'run.finished' }>; onDismiss: () => void }) {
  return (
    <div className="wf-run-banner" data-testid="run-banner" data-status={finished?.status ?? 'running'} role="status">
      <span>
        {finished ? `Run: ${runStatusLabel(finished.status, false, finished.partial)}${finished.message ? ` — ${finished.message}` : ''}.` : 'Running…'} Click a node to open its rounds.
      </span>
      <ul className="wf-run-banner__legend" aria-label="Node colours">
        {LEGEND.map(([status, label]) => (
          <li key={status} className={`wf-legend wf-legend--${status}`}>
            {label}
          </li>
        ))}
      </ul>
      <a className="button button--small" href={routeHref({ name: 'run', runId, tab: 'nodes' })} data-testid="open-run">
        Open run
      </a>
      <button type="button" className="button button--small" onClick={onDismiss} data-testid="run-dismiss">
        Back to editing
      </button>
    </div>
  );
}
