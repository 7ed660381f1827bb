import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { shot } from './helpers';

/** `steward eval` keeps its report in the data folder; the app's Learning screen shows it as promotion evidence. */

let host: HostProcess;
let dataDir: string;

test.beforeAll(async () => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-eval-'));
  // The shipped command, as a person runs it: a part of the supervisor suite, then the boundary suite with a bad teacher.
  execFileSync(process.execPath, ['bin/steward.mjs', 'eval', 'supervisor', '--case', 'stream.', '--data-dir', dataDir], { stdio: 'ignore' });
  let failedCode = 0;
  try {
    execFileSync(process.execPath, ['bin/steward.mjs', 'eval', 'boundary', '--teacher', 'rubber-stamp', '--data-dir', dataDir], { stdio: 'ignore' });
  } catch (err) {
    failedCode = (err as { status?: number }).status ?? -1;
  }
  expect(failedCode).toBe(1);
  host = await startHostProcess(dataDir);
});

test.afterAll(async () => {
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('the Learning screen shows the latest eval reports with their gates: the supervisor suite held, the boundary suite with a rubber-stamp teacher did not', async ({ page }) => {
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible();
  await page.evaluate(() => (window.location.hash = '#/learning'));
  const supervisor = page.getByTestId('eval-report-supervisor');
  await expect(supervisor).toHaveAttribute('data-passed', 'true');
  await expect(supervisor.locator('tr[data-gate]')).toHaveCount(7);
  await expect(supervisor).toContainText('all gates hold');
  const boundary = page.getByTestId('eval-report-boundary');
  await expect(boundary).toHaveAttribute('data-passed', 'false');
  await expect(boundary.locator('tr[data-gate="unsafe_executions"]')).toHaveAttribute('data-passed', 'false');
  // The injection check was never run in this data folder: its card says so and offers to run it.
  const injection = page.getByTestId('eval-report-injection');
  await expect(injection.getByTestId('injection-none')).toContainText('Not run in this data folder yet');
  await expect(injection.getByTestId('injection-run')).toHaveText('Run the injection check');
  await boundary.scrollIntoViewIfNeeded();
  await shot(page, 'eval-evidence');
});
