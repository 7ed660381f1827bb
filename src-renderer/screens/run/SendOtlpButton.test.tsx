import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { ClientFrame } from '@shared/contracts/host-api';
import { HostProvider } from '../../app/HostProvider';
import { createHostClient } from '../../host/host-client';
import { StewardDb } from '../../db/db';
import { FakeTransport } from '../../testing/fake-transport';
import { SendOtlpButton, sendRunToOtlp } from './SendOtlpButton';

/** Answers runs.otlp_send with `result`, or with the host's error frame when `error` is given. */
function host(answer: { result?: unknown; error?: { code: string; message: string } }) {
  const transport: FakeTransport = new FakeTransport((frame: ClientFrame) => {
    if (frame.method !== 'runs.otlp_send') return undefined;
    if (answer.error) {
      queueMicrotask(() => transport.push({ kind: 'response', id: frame.id, ok: false, error: answer.error }));
      return undefined;
    }
    return answer.result;
  });
  const client = createHostClient(transport);
  transport.setState('open');
  return { transport, client };
}

describe('Send to OTLP endpoint… in the run view', () => {
  it('asks the host to send the run to the endpoint typed, and says how many spans went where', async () => {
    const { transport, client } = host({ result: { sent: true, spans: 12, url: 'http://127.0.0.1:4318/v1/traces', rejected_spans: 0 } });
    const outcome = await sendRunToOtlp(client, 'run-1', '  http://127.0.0.1:4318 ');
    expect(transport.lastRequest()).toMatchObject({ method: 'runs.otlp_send', params: { run_id: 'run-1', endpoint: 'http://127.0.0.1:4318' } });
    expect(outcome).toEqual({ tone: 'ok', text: 'Sent 12 spans to http://127.0.0.1:4318/v1/traces.' });
  });

  it("shows the host's refusal as it gives it, and a collector that could not be reached as not sent", async () => {
    const refusal = "the OTLP endpoint would send this run's data to otel.example.com, which the privacy policy does not allow (local only); allow otel.example.com in Settings → Privacy, or send to a collector on this machine";
    const refused = host({ error: { code: 'forbidden', message: refusal } });
    expect(await sendRunToOtlp(refused.client, 'run-1', 'https://otel.example.com')).toEqual({ tone: 'error', text: `Refused: ${refusal}` });
    const unreachable = host({ result: { sent: false, message: 'sending to http://127.0.0.1:4318/v1/traces failed: the endpoint could not be reached' } });
    expect(await sendRunToOtlp(unreachable.client, 'run-1', 'http://127.0.0.1:4318')).toEqual({
      tone: 'error',
      text: 'Not sent: sending to http://127.0.0.1:4318/v1/traces failed: the endpoint could not be reached',
    });
  });

  it('is a button that opens a labelled form (hidden until opened), disabled while the host is not connected', () => {
    const client = createHostClient(new FakeTransport());
    const db = new StewardDb(`steward-otlp-send-${Math.random().toString(36).slice(2)}`);
    const html = renderToStaticMarkup(
      <HostProvider client={client} db={db} tokenMissing={false}>
        <SendOtlpButton runId="run-1" />
      </HostProvider>,
    );
    expect(html).toMatch(/<button[^>]*data-testid="send-otlp"[^>]*aria-expanded="false"[^>]*disabled=""[^>]*>Send to OTLP endpoint…<\/button>/);
    expect(html).toMatch(/<form[^>]*hidden=""[^>]*aria-label="Send this run to an OTLP endpoint"/);
  });
});
