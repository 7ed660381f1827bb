import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import type { HostProcess } from '../test-support/host-process';
import { askingSpecInput } from '../test-support/asking-spec';
import { startHostOnPort } from './host-on-port';

// Issue 28: "An interrupted run still shows its last round 'In progress · Waiting for the model's
// proposal…'; its header counts 2 rounds where the tab says 3. An ended run shows no live state."
// A real run is cut off by killing the host mid-round; the host started again closes it interrupted.
// Real host, CLI, MCP server and IndexedDB; the model is the replay provider (the model boundary).

const SHOTS = '/tmp/shots';
mkdirSync(SHOTS, { recursive: true });
const STEWARD = join(process.cwd(), 'bin', 'steward.mjs');

let host: HostProcess | undefined;
let dataDir: string;
let specDir: string;
let cli: ChildProcess | undefined;

test.beforeAll(() => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-interrupted-'));
  specDir = mkdtempSync(join(tmpdir(), 'steward-e2e-interrupted-spec-'));
  mkdirSync(join(specDir, 'notes-sandbox'));
  writeFileSync(join(specDir, 'notes-sandbox', 'monday.md'), '# Monday\n- ship the editor\n');
});

test.afterAll(async () => {
  if (cli && cli.exitCode === null && cli.signalCode === null) cli.kill('SIGKILL');
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(specDir, { recursive: true, force: true });
});

/** Two rounds that read the note, then a third whose model takes a minute to answer: the host is stopped during it. */
function slowThirdRound(): string {
  const file = join(specDir, 'slow-third.json');
  const read = { json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: join(specDir, 'notes-sandbox', 'monday.md') } } };
  writeFileSync(
    file,
    JSON.stringify({
      ...askingSpecInput(),
      id: 'slow-third',
      name: 'Slow third round',
      script: { latency_ms: 0, student: [read, read, { json: { decision_type: 'complete', output: 'Never said.' }, delay_ms: 60_000 }], teacher: [] },
    }),
  );
  return file;
}

/** What would say the run is still going on: a spinner, a live card, "In progress", "Waiting for…". */
async function expectNothingLive(page: Page): Promise<void> {
  const main = page.locator('.page--run');
  await expect(main.locator('.spinner, .pulse, .round--live')).toHaveCount(0);
  await expect(main).not.toContainText('In progress');
  await expect(main).not.toContainText(/Waiting for (the|your)/);
  await expect(page.getByTestId('cancel-button')).toHaveCount(0);
}

test('a run cut off by a host stop mid-round: after the restart it reads Interrupted, its header counts the rounds its tab counts, and nothing of it looks live', async ({ browser }) => {
  test.setTimeout(120_000);
  host = await startHostOnPort(dataDir, 0);
  const page = await browser.newPage();
  await page.goto(host.url);
  await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 20_000 });

  // The app is running: the command hands the run to it, and the page shows it live.
  cli = spawn(process.execPath, [STEWARD, 'run', slowThirdRound(), '--data-dir', dataDir], { stdio: 'ignore' });
  await page.evaluate(() => (window.location.hash = '#/runs'));
  const row = page.getByTestId('run-row').filter({ hasText: 'Slow third round' });
  await row.click({ timeout: 30_000 });
  await expect(page).toHaveURL(/#\/runs\/[^/]+/);
  const runUrl = page.url();
  const third = page.locator('[data-testid=round-card][data-round="2"]');
  await expect(third).toContainText('In progress', { timeout: 30_000 });
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'running');
  await page.screenshot({ path: `${SHOTS}/28-interrupted-before.png` });

  // The host dies mid-round (a crash, a kill): nothing closes the run.
  const port = host.port;
  await host.stop('SIGKILL');
  cli.kill('SIGKILL');
  host = await startHostOnPort(dataDir, port);
  // Same origin, so the page keeps its IndexedDB; the new launch's link, then the run as it was open.
  await page.goto(host.url);
  await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 20_000 });
  await page.evaluate((hash) => (window.location.hash = hash), new URL(runUrl).hash);

  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'interrupted', { timeout: 30_000 });
  await expect(page.getByTestId('run-status')).toHaveText('Interrupted');
  // The tab lists three rounds; the header says the same number, and that one did not finish.
  const tab = page.getByRole('tab', { name: /Rounds/ });
  await expect(tab).toContainText('3');
  await expect(page.locator('[data-testid=round-card]')).toHaveCount(3);
  await expect(page.getByTestId('run-rounds')).toHaveText('3 · the 3rd was interrupted');
  await expect(third).toContainText('Did not finish');
  await expect(third.getByTestId('round-unfinished')).toBeVisible();
  await expect(page.getByTestId('run-final')).toContainText('The Steward host stopped while this run was in progress');
  await expectNothingLive(page);
  await page.screenshot({ path: `${SHOTS}/28-interrupted-after.png`, fullPage: true });

  // Runs says so too, and counts the rounds as the run view does (not the two that completed).
  await page.evaluate(() => (window.location.hash = '#/runs'));
  await expect(row.locator('[data-status]').first()).toHaveText('Interrupted');
  await expect(row.getByTestId('run-row-rounds')).toHaveText('3the 3rd was interrupted');
  await expect(row.getByTestId('run-row-rounds')).toHaveJSProperty('innerText', '3\nthe 3rd was interrupted');
  await page.screenshot({ path: `${SHOTS}/28-interrupted-runs-row.png` });
  await page.close();
});
