import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closedPort } from '../../test-support/closed-port';
import { collector } from '../../test-support/otlp-collector';
import { finishedTriageRun } from '../../test-support/hosted-workflows';
import { hostPage } from '../../test-support/host-session';
import { createHost } from '../composition/create-host';
import { exportEvents } from './export-otlp';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

describe('runs.otlp_send: the app sends a run to an OTLP endpoint the host allows', () => {
  it('sends the run to a loopback collector (the bytes the official serializer writes), remembers the endpoint across a restart, and refuses a host the privacy policy does not list', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-otlp-send-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const host = await createHost({ dataDir, shell: 'browser', log: () => undefined });
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    const { run_id } = await finishedTriageRun(page, dataDir);
    expect(await page.ok('otlp.endpoint', {})).toEqual({});

    // Another host, not in the policy (local only): refused by the host, nothing sent, nothing remembered.
    const refused = await page.call('runs.otlp_send', { run_id, endpoint: 'https://otel.example.com' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    const message = refused.ok ? '' : refused.error.message;
    expect(message).toContain('otel.example.com');
    expect(message).toContain('privacy policy does not allow');
    expect(message).toContain('Settings → Privacy');
    expect(await page.ok('otlp.endpoint', {})).toEqual({});

    const otlp = await collector();
    cleanups.push(() => new Promise<void>((resolve) => otlp.server.close(() => resolve())));
    const sent = await page.ok('runs.otlp_send', { run_id, endpoint: otlp.url });
    const official = exportEvents(page.events.filter((e) => e.run_id === run_id));
    expect(sent).toEqual({ sent: true, spans: official.spans, url: `${otlp.url}/v1/traces`, rejected_spans: 0 });
    expect(official.spans).toBeGreaterThan(3);
    expect(otlp.received).toHaveLength(1);
    expect(otlp.received[0]).toMatchObject({ path: '/v1/traces', contentType: 'application/json' });
    expect(otlp.received[0]?.body).toBe(new TextDecoder().decode(official.body));

    const missing = await page.call('runs.otlp_send', { run_id: 'no-such-run', endpoint: otlp.url });
    expect(missing).toMatchObject({ ok: false, error: { code: 'not_found' } });

    // The app remembers where it sent, in its data folder: a restarted host offers it again.
    await host.close();
    const again = await createHost({ dataDir, shell: 'browser', log: () => undefined });
    cleanups.push(() => again.close());
    expect(await hostPage(again).ok('otlp.endpoint', {})).toEqual({ endpoint: otlp.url });
  }, 90_000);

  it('a collector that is not there is a result the page can show (sent: false, why), not a host error', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-otlp-send-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const host = await createHost({ dataDir, shell: 'browser', log: () => undefined });
    cleanups.push(() => host.close());
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    const { run_id } = await finishedTriageRun(page, dataDir);
    const port = await closedPort();
    const result = await page.ok('runs.otlp_send', { run_id, endpoint: `http://127.0.0.1:${port}` });
    expect(result).toEqual({ sent: false, message: `sending to http://127.0.0.1:${port}/v1/traces failed: the endpoint could not be reached` });
  }, 90_000);
});
