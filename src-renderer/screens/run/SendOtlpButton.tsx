import { useEffect, useId, useState } from 'react';
import { useHost } from '../../app/HostProvider';
import { HostRequestError, type HostClient } from '../../host/host-client';
import { plural } from '../../view/format';

/** What a send came to, in words for the page: sent (how many spans, where), not sent (why), refused (why). */
export type SendOutcome = { tone: 'ok' | 'error'; text: string };

/**
 * Asks the host to send the run to `endpoint`. The host alone judges the address against the
 * privacy policy; its refusal comes back as a forbidden error and is shown as it says.
 */
export async function sendRunToOtlp(client: Pick<HostClient, 'request'>, runId: string, endpoint: string): Promise<SendOutcome> {
  try {
    const result = await client.request('runs.otlp_send', { run_id: runId, endpoint: endpoint.trim() });
    if (!result.sent) return { tone: 'error', text: `Not sent: ${result.message}` };
    const rejected = result.rejected_spans > 0 ? ` (the collector rejected ${result.rejected_spans})` : '';
    return { tone: 'ok', text: `Sent ${plural(result.spans, 'span')} to ${result.url}${rejected}.` };
  } catch (err) {
    if (err instanceof HostRequestError && err.code === 'forbidden') return { tone: 'error', text: `Refused: ${err.message.replace(/^runs\.otlp_send: /, '')}` };
    return { tone: 'error', text: `Could not send the run: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** "Send to OTLP endpoint…": a small form, filled with the endpoint the app last sent to. */
export function SendOtlpButton({ runId }: { runId: string }) {
  const { client, connection } = useHost();
  const formId = useId();
  const [open, setOpen] = useState(false);
  const [endpoint, setEndpoint] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<SendOutcome>();

  useEffect(() => {
    if (!open || connection !== 'open') return;
    let live = true;
    client
      .request('otlp.endpoint', {})
      .then((remembered) => {
        if (live && remembered.endpoint !== undefined) setEndpoint((typed) => typed || remembered.endpoint!);
      })
      // Nothing remembered to offer: the field stays empty, the send still works.
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [open, client, connection]);

  const send = async () => {
    setBusy(true);
    setOutcome(undefined);
    setOutcome(await sendRunToOtlp(client, runId, endpoint));
    setBusy(false);
  };

  return (
    <>
      <button type="button" className="button" data-testid="send-otlp" aria-expanded={open} aria-controls={formId} onClick={() => setOpen(!open)} disabled={connection !== 'open'}>
        Send to OTLP endpoint…
      </button>
      <form
        id={formId}
        className="otlp-send"
        hidden={!open}
        aria-label="Send this run to an OTLP endpoint"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape') setOpen(false);
        }}
      >
        <label className="field">
          <span className="field__label">OTLP/HTTP endpoint (a collector on this machine, or a host the privacy policy allows)</span>
          <input className="input" type="url" required value={endpoint} placeholder="http://127.0.0.1:4318" onChange={(e) => setEndpoint(e.target.value)} data-testid="otlp-endpoint" />
        </label>
        <button type="submit" className="button button--primary" disabled={busy || endpoint.trim() === '' || connection !== 'open'} data-testid="otlp-send-submit">
          {busy ? 'Sending…' : 'Send'}
        </button>
        <span role="status" className={outcome?.tone === 'ok' ? 'ok-text' : 'error'} data-testid="otlp-send-outcome">
          {outcome?.text}
        </span>
      </form>
    </>
  );
}
