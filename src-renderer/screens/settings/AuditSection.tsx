import { useEffect, useState } from 'react';
import type { AuditAction, AuditRecord } from '@shared/contracts/audit';
import { useHost } from '../../app/HostProvider';
import { useHostRegistry } from '../../host/use-host-registry';
import { formatDateTime } from '../../view/format';

const DECIDED_BY: Record<AuditRecord['decided_by'], string> = {
  user_dialog: 'you, in a dialog',
  terminal_code: 'the code from the terminal',
  automatic: 'no approval needed',
  page: 'withdrawn in the page',
  command_line: 'you, with a steward command',
};

/** What each recorded action was, in words (its code stays in the row's data-action and tooltip). */
export const AUDIT_ACTION_WORDS = {
  'servers.register': 'Server added or changed',
  'servers.remove': 'Server removed',
  'servers.trust': 'Server trust changed',
  'workspaces.register': 'Workspace folder added or changed',
  'workspaces.remove': 'Workspace folder removed',
  'privacy.set': 'Privacy policy changed',
  'effects.set': 'Tool effect set',
  'credentials.set': 'Credential stored',
  'credentials.delete': 'Credential deleted',
} as const satisfies Record<AuditAction, string>;

/** The host's audit log of explicit actions (servers, folders, privacy, tool effects, credentials), newest first. */
export function AuditSection() {
  const { client, connection } = useHost();
  // Re-read whenever the registry changes (an action just happened) or the connection opens.
  const { state } = useHostRegistry();
  const [records, setRecords] = useState<AuditRecord[]>();
  const [error, setError] = useState<string>();
  const [tick, setTick] = useState(0);

  useEffect(() => {
    if (connection !== 'open') return;
    let live = true;
    client.request('audit.list', { limit: 200 }).then(
      (r) => live && (setRecords(r.records), setError(undefined)),
      (err: unknown) => live && setError(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      live = false;
    };
  }, [client, connection, state, tick]);

  return (
    <section className="card settings-section" aria-labelledby="audit-title" data-testid="audit-section">
      <h2 id="audit-title" className="settings-section__title">
        Audit log
      </h2>
      <p className="settings-section__intro">
        Every change to what runs may use — MCP servers, workspace folders, the privacy policy, tool effects, credentials — is recorded here by the host, with who approved it. Values of credentials
        are never recorded.
      </p>
      <p>
        <button type="button" className="button button--small" onClick={() => setTick((t) => t + 1)} disabled={connection !== 'open'}>
          Refresh
        </button>
      </p>
      {error ? (
        <p className="error" role="alert">
          Could not read the audit log: {error}
        </p>
      ) : records === undefined ? (
        <p className="muted">Loading…</p>
      ) : records.length === 0 ? (
        <p className="muted" data-testid="audit-empty">
          Nothing yet: no server, folder, privacy, tool-effect or credential change has been asked for.
        </p>
      ) : (
        <table className="table table--compact" data-testid="audit-list">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Action</th>
              <th scope="col">What</th>
              <th scope="col">Decided by</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {records.map((r, i) => (
              <tr key={`${r.at}-${i}`} data-testid="audit-record" data-action={r.action} data-outcome={r.outcome}>
                <td>{formatDateTime(r.at)}</td>
                <td title={r.action}>{AUDIT_ACTION_WORDS[r.action]}</td>
                <td>
                  <code>{r.subject}</code> <span className="muted">{r.detail}</span>
                </td>
                <td>{DECIDED_BY[r.decided_by]}</td>
                <td className={r.outcome === 'denied' ? 'error' : undefined}>
                  {r.outcome}
                  {r.reason ? ` (${r.reason})` : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
