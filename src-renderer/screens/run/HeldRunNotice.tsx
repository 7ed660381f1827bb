import type { HeldRunState } from './use-held-run';
import { count } from '../../view/format';

/** Says where a run's events are while they are not all on this page: loading from the host, waiting for it, or not there. */
export function HeldRunNotice({ state, expected, retry }: { state: HeldRunState; expected?: number | undefined; retry(): void }) {
  switch (state.kind) {
    case 'checking':
    case 'held':
      return null;
    case 'fetching':
      return (
        <div className="notice" role="status" aria-live="polite" data-testid="run-events-loading">
          <p>
            Loading this run's events from the host's history: {count(state.arrived)}
            {expected !== undefined ? ` of ${count(expected)}` : ''}. This browser keeps recent and opened runs; the rest stay on the host.
          </p>
          <progress max={Math.max(1, expected ?? state.arrived)} value={state.arrived} aria-label="Events loaded" />
        </div>
      );
    case 'offline':
      return (
        <div className="notice notice--warning" role="status" data-testid="run-events-offline">
          <p>This run's events are in the host's history, not in this browser. They load as soon as the host is connected again.</p>
        </div>
      );
    case 'unknown':
      return (
        <div className="notice notice--warning" role="status" data-testid="run-events-unknown">
          <p>The host's history has no such run: it may have been deleted from another window or by a trace profile's retention. What this browser still holds is shown.</p>
        </div>
      );
    case 'failed':
      return (
        <div className="notice notice--error" role="alert" data-testid="run-events-failed">
          <p>Could not load this run's events from the host: {state.message}</p>
          <button type="button" className="button" onClick={retry}>
            Try again
          </button>
        </div>
      );
  }
}
