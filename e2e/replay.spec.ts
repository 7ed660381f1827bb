import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { runIdFromUrl, shot } from './helpers';

let host: HostProcess;
let dataDir: string;

test.beforeAll(async () => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-replay-'));
  host = await startHostProcess(dataDir);
});

test.afterAll(async () => {
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a finished run replays dry from its page: the new run opens, says which run it replays, and finds no differences', async ({ page }) => {
  await page.goto(host.url);
  await page.getByTestId('workflow-card').filter({ hasText: 'Notes assistant' }).getByTestId('run-button').click();
  await expect(page).toHaveURL(/#\/runs\//);
  const recorded = runIdFromUrl(page.url());
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });

  await page.getByTestId('replay-button').click();
  await expect(page.getByRole('radio', { name: /a dry run/ })).toBeChecked();
  await page.getByTestId('replay-submit').click();
  await expect(page).not.toHaveURL(new RegExp(recorded));
  await expect(page.getByTestId('replay-of').getByRole('link')).toHaveAttribute('href', `#/runs/${recorded}`);
  await expect(page.getByTestId('dry-run-banner')).toBeVisible();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect(page.getByTestId('differences-none')).toContainText('No differences: every round (4) made the recorded decisions.');
  await shot(page, 'replay-no-differences');
  expect(runIdFromUrl(page.url())).not.toBe(recorded);
});
