import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { HostProvider } from '../../app/HostProvider';
import { createHostClient } from '../../host/host-client';
import { StewardDb } from '../../db/db';
import { FakeTransport } from '../../testing/fake-transport';
import { ExportOtlpButton, runOtlpFile } from './ExportOtlpButton';

describe('Export OTLP in the run view', () => {
  it('asks the host for the run by id and names the download after it (no path characters)', async () => {
    const transport = new FakeTransport((frame) => (frame.kind === 'request' && frame.method === 'runs.otlp' ? { json: '{"resourceSpans":[]}', spans: 0 } : undefined));
    const client = createHostClient(transport);
    transport.setState('open');
    const file = await runOtlpFile(client, '../run:42');
    expect(transport.lastRequest()).toMatchObject({ kind: 'request', method: 'runs.otlp', params: { run_id: '../run:42' } });
    expect(file).toEqual({ fileName: 'steward-run-___run_42.otlp.json', text: '{"resourceSpans":[]}\n', spans: 0 });
  });

  it('is painted as a button, disabled while the host is not connected', () => {
    const client = createHostClient(new FakeTransport());
    const db = new StewardDb(`steward-otlp-button-${Math.random().toString(36).slice(2)}`);
    const html = renderToStaticMarkup(
      <HostProvider client={client} db={db} tokenMissing={false}>
        <ExportOtlpButton runId="run-1" />
      </HostProvider>,
    );
    expect(html).toMatch(/<button[^>]*data-testid="export-otlp"[^>]*disabled=""[^>]*>Export OTLP<\/button>/);
  });
});
