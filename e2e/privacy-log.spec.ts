import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { collector } from '../test-support/otlp-collector';
import { shot } from './helpers';

let host: HostProcess;
let dataDir: string;

test.beforeAll(async () => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-privacy-'));
  host = await startHostProcess(dataDir);
});

test.afterAll(async () => {
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("a run's Privacy tab lists each model call and what it was sent; the run goes to a loopback OTLP collector, a host the policy does not list is refused, and the endpoint is remembered", async ({ page }) => {
  const otlp = await collector();
  try {
    await page.goto(host.url);
    await page.getByTestId('workflow-card').filter({ hasText: 'Notes assistant' }).getByTestId('run-button').click();
    await expect(page).toHaveURL(/#\/runs\//);
    await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });

    await page.getByTestId('privacy-tab').click();
    await expect(page).toHaveURL(/\/privacy$/);
    await expect(page.getByTestId('privacy-summary')).toContainText('all on this machine');
    await expect(page.getByTestId('privacy-group').first()).toContainText('Local');
    const calls = page.getByTestId('privacy-call');
    expect(await calls.count()).toBeGreaterThan(3);
    await expect(calls.filter({ hasText: 'Teacher' }).first()).toContainText("the student's candidate");
    await expect(calls.filter({ hasText: 'tool results (workspace content)' }).first()).toBeVisible();
    await shot(page, 'privacy-tab');

    await page.getByTestId('send-otlp').click();
    const endpoint = page.getByTestId('otlp-endpoint');
    await endpoint.fill('https://otel.example.com');
    await page.getByTestId('otlp-send-submit').click();
    await expect(page.getByTestId('otlp-send-outcome')).toContainText('Refused: the OTLP endpoint would send this run');
    await expect(page.getByTestId('otlp-send-outcome')).toContainText('otel.example.com');
    expect(otlp.received).toHaveLength(0);

    await endpoint.fill(otlp.url);
    await page.getByTestId('otlp-send-submit').click();
    await expect(page.getByTestId('otlp-send-outcome')).toContainText(/^Sent \d+ spans to http:\/\/127\.0\.0\.1:\d+\/v1\/traces\.$/);
    expect(otlp.received).toHaveLength(1);
    await shot(page, 'otlp-sent');

    // The app remembers where it sent: after a reload the form offers it.
    await page.reload();
    await page.getByTestId('send-otlp').click();
    await expect(page.getByTestId('otlp-endpoint')).toHaveValue(otlp.url);
  } finally {
    await new Promise<void>((resolve) => otlp.server.close(() => resolve()));
  }
});
