import { useState } from 'react';
import type { RegisteredServer } from '@shared/contracts/host-registry';
import { SERVER_TRUST_LABELS, SERVER_TRUST_MEANING, trustOf, type ServerTrust } from '@shared/contracts/server-trust';
import type { ActionOutcome } from '../../components/ExplicitAction';
import type { ActionResult } from '@shared/contracts/audit';
import { useHost } from '../../app/HostProvider';
import { hostErrorText } from './server-form';

/**
 * A server's trust level on its registry card (issue 31), with the control to change it: what it
 * means for the untrusted-provenance review rule is said in words before anything changes. Marking
 * it trusted is an explicit action a person confirms (the host's dialog, or the code from its
 * terminal); every change is in the audit log.
 */
export function ServerTrustControl({
  server,
  action,
  refresh,
  onStatus,
}: {
  server: RegisteredServer;
  action: { run(request: () => Promise<ActionResult>): Promise<ActionOutcome> };
  refresh: () => Promise<unknown>;
  onStatus: (status: { tone: 'ok' | 'error'; text: string }) => void;
}) {
  const { client, connection } = useHost();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const current = trustOf(server);
  const next: ServerTrust = current === 'trusted' ? 'untrusted' : 'trusted';

  const change = async () => {
    setBusy(true);
    try {
      const outcome = await action.run(() => client.request('servers.trust', { id: server.id, trust: next }));
      await refresh();
      setOpen(false);
      onStatus(outcome.status === 'denied' ? { tone: 'error', text: outcome.message } : { tone: 'ok', text: `“${server.id}” is now ${next}. ${SERVER_TRUST_MEANING[next]}` });
    } catch (err) {
      onStatus({ tone: 'error', text: hostErrorText(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <span data-testid="server-trust" data-trust={current} title={SERVER_TRUST_LABELS[current]}>
        {current === 'trusted' ? 'trusted results (values copied from them are not reviewed for where they came from)' : 'untrusted results (values copied from them are reviewed)'}
      </span>{' '}
      <button type="button" className="link-button" aria-expanded={open} onClick={() => setOpen(!open)} disabled={connection !== 'open'} data-testid="server-trust-change">
        {current === 'trusted' ? 'Mark untrusted…' : 'Mark trusted…'}
      </button>
      {open && (
        <span className="server-trust__explain" style={{ display: 'block', marginTop: '0.5em' }} role="group" aria-label={`Trust level of ${server.id}`} data-testid="server-trust-explain">
          <strong>{SERVER_TRUST_LABELS[next]}.</strong> {SERVER_TRUST_MEANING[next]}
          {next === 'trusted' && ' You confirm this change; it is recorded in the audit log.'}{' '}
          <button type="button" className={`button button--small ${next === 'trusted' ? 'button--danger' : 'button--primary'}`} disabled={busy || connection !== 'open'} onClick={() => void change()} data-testid="server-trust-confirm">
            {busy ? 'Saving…' : next === 'trusted' ? `Mark ${server.id} trusted` : `Mark ${server.id} untrusted`}
          </button>{' '}
          <button type="button" className="button button--small" onClick={() => setOpen(false)}>
            Keep it {current}
          </button>
        </span>
      )}
    </>
  );
}
