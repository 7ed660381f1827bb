import { useHost } from '../app/HostProvider';
import { Spinner } from './Icons';

/** Visible whenever the host is not reachable, or something went wrong in the background. */
export function ConnectionBanner() {
  const { connection, everConnected, tokenMissing, problem } = useHost();
  if (connection === 'open') {
    if (!problem) return null;
    return (
      <div className="banner banner--warn" role="alert">
        {problem}
      </div>
    );
  }
  return (
    <div className="banner" role="status" data-testid="connection-banner" data-state={connection}>
      {connection === 'closed' ? null : <Spinner />}
      <span>
        <strong>{connection === 'closed' ? 'Disconnected from the Steward host.' : everConnected ? 'Reconnecting to the Steward host…' : 'Connecting to the Steward host…'}</strong>
        {tokenMissing && !everConnected && (
          <span className="banner__hint">
            This page was opened without its access link. Open the <code>http://127.0.0.1:…/#launch=…</code> link the host printed (each works once).
          </span>
        )}
        {!tokenMissing && <span className="banner__hint">Your workflows and run history stay available here meanwhile.</span>}
      </span>
    </div>
  );
}
