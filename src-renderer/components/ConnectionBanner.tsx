import type { ReactNode } from 'react';
import { useHost } from '../app/HostProvider';
import { Spinner } from './Icons';

/**
 * Visible whenever the host is not reachable, or something went wrong in the background. Each state
 * says what is happening and what a person can do (issue 28): a host that stopped is found again by
 * itself; a host that refuses this page (a new token, another data folder's host on the port) or a
 * link that no longer works needs a new link, which `steward open` prints and opens.
 */
export function ConnectionBanner() {
  const { connection, everConnected, tokenMissing, launchProblem, problem } = useHost();
  if (connection === 'open') {
    if (!problem) return null;
    return (
      <div className="banner banner--warn" role="alert">
        {problem}
      </div>
    );
  }
  // The link this page was opened with did not work: that says what to do, whatever the socket does meanwhile.
  if (launchProblem !== undefined) {
    return (
      <div className="banner banner--warn" role="alert" data-testid="launch-refused" data-state={connection}>
        <span>
          <strong>This link did not open Steward.</strong>
          <span className="banner__hint">{withCode(launchProblem)}</span>
        </span>
      </div>
    );
  }
  if (connection === 'refused') {
    return (
      <div className="banner banner--warn" role="alert" data-testid="connection-banner" data-state="refused">
        <span>
          {tokenMissing ? (
            <>
              <strong>This page has no access to Steward yet.</strong>
              <span className="banner__hint">
                Open Steward with its link: run <code>steward open</code> in a terminal (it prints a new one-time link and opens it), or use the link <code>npm start</code> printed. Each
                link works once.
              </span>
            </>
          ) : (
            <>
              <strong>Steward at {window.location.host} no longer accepts this page.</strong>
              <span className="banner__hint">
                It was started with a new access token, or it is the Steward of another data folder. Run <code>steward open</code> in a terminal for a new link (add{' '}
                <code>--data-dir DIR</code> for another data folder): it opens Steward for you. This page does not try again by itself.
              </span>
            </>
          )}
        </span>
      </div>
    );
  }
  const title = connection === 'closed' ? 'Disconnected from the Steward host.' : everConnected ? 'Reconnecting to the Steward host…' : 'Connecting to the Steward host…';
  return (
    <div className="banner" role="status" data-testid="connection-banner" data-state={connection}>
      {connection === 'closed' ? null : <Spinner />}
      <span>
        <strong>{title}</strong>
        {connection !== 'closed' && (
          <span className="banner__hint" data-testid="connection-hint">
            {everConnected ? 'It stopped or is restarting: this page connects again by itself as soon as it is back.' : 'This page connects as soon as Steward answers.'} If it
            stopped, start it again with <code>npm start</code> on the same data folder. If it now runs at another address, <code>steward open</code> opens it there. Your
            workflows and run history stay available here meanwhile.
          </span>
        )}
      </span>
    </div>
  );
}

/** `backticked` words of a message (a command to type) shown as code. */
function withCode(text: string): ReactNode[] {
  return text.split('`').map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part));
}
