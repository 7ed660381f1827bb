import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import type { HostProcess } from '../test-support/host-process';
import { startHostOnPort } from './host-on-port';

/**
 * Issue 28, "A page that finds its host again": the host stopped and started again on the same data
 * folder and port, the open tab reconnects by itself (no reload) with its runs; a page the host on
 * its port refuses says what to do; `steward open` (the CLI as a process) gives a link that works
 * once. Everything is real: the host processes, the CLI, Chromium, IndexedDB; the demo runs on the
 * replay models (the model boundary's test double).
 */

const CLI = join(process.cwd(), 'bin', 'steward.mjs');
const SHOTS = '/tmp/shots/issue-28';
mkdirSync(SHOTS, { recursive: true });
const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png` });

const run = promisify(execFile);
/** `steward ARGS` as a person types it, from another terminal: exit code, stdout, stderr. */
async function steward(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { ...process.env, CI: '1', STEWARD_DATA_DIR: '' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const dirs: string[] = [];
const hosts: HostProcess[] = [];
function dataFolder(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `steward-e2e-comes-back-${name}-`));
  dirs.push(dir);
  return dir;
}
async function hostOn(dataDir: string, port: number): Promise<HostProcess> {
  const host = await startHostOnPort(dataDir, port);
  hosts.push(host);
  return host;
}

test.beforeAll(() => ensureBuilt());
test.afterAll(async () => {
  for (const host of hosts) await host.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test('steward open --print gives a link to the running app that opens it once; used again, the page says so and names steward open; with no app it says how to start one', async ({ browser }) => {
  const dataDir = dataFolder('open');
  const none = await steward(['open', '--print', '--data-dir', dataDir]);
  expect(none.code).toBe(1);
  expect(none.stdout).toBe('');
  expect(none.stderr).toContain(`no Steward app is running on the data folder ${dataDir}`);
  expect(none.stderr).toContain(`npm start -- --data-dir ${dataDir}`);

  const host = await hostOn(dataDir, 0);
  const opened = await steward(['open', '--print', '--data-dir', dataDir]);
  expect(opened.code).toBe(0);
  const link = opened.stdout.trim();
  expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${host.port}/#launch=[A-Za-z0-9_-]+$`));
  expect(opened.stdout + opened.stderr).not.toContain(host.token);

  const page = await (await browser.newContext()).newPage();
  await page.goto(link);
  await expect(page).toHaveURL(/#\/workflows$/);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible();
  await expect(page.getByTestId('connection-banner')).toHaveCount(0);

  // The same link in another browser profile: spent.
  const other = await (await browser.newContext()).newPage();
  await other.goto(link);
  const refused = other.getByTestId('launch-refused');
  await expect(refused).toContainText('This link did not open Steward.');
  await expect(refused).toContainText('already used');
  await expect(refused.locator('code').first()).toHaveText('steward open');
  await expect(refused).not.toContainText('Enter');
  await shot(other, '01-launch-link-used');

  // What the banner told them to do, done: a new link from steward open, in the same tab.
  const fresh = await steward(['open', '--print', '--data-dir', dataDir]);
  await other.goto(fresh.stdout.trim());
  await expect(other.getByTestId('workflow-card').first()).toBeVisible();
  await expect(other.getByTestId('launch-refused')).toHaveCount(0);
  await expect(other.getByTestId('connection-banner')).toHaveCount(0);
});

test('the host stopped and started again on the same data folder and port: the open tab reconnects by itself, no reload, its runs still there, and it runs again', async ({ browser }) => {
  const dataDir = dataFolder('restart');
  let host = await hostOn(dataDir, 0);
  const port = host.port;
  const page = await (await browser.newContext()).newPage();
  let loads = 0;
  page.on('load', () => (loads += 1));
  await page.goto((await steward(['open', '--print', '--data-dir', dataDir])).stdout.trim());
  const notes = page.getByTestId('workflow-card').filter({ hasText: 'Notes assistant' });
  // A link printed before the stop and never used: it ends with the host that made it. (Asked for
  // from the other terminal while the run goes on.)
  const printedBefore = steward(['open', '--print', '--data-dir', dataDir]);
  await notes.getByTestId('run-button').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await page.evaluate(() => (window.location.hash = '#/runs'));
  await expect(page.getByTestId('run-row')).toHaveCount(1);
  await page.evaluate(() => ((window as unknown as { sameDocument: string }).sameDocument = 'yes'));
  const before = (await printedBefore).stdout.trim();
  expect(before).toMatch(/#launch=/);

  await host.stop();
  const banner = page.getByTestId('connection-banner');
  await expect(banner).toHaveAttribute('data-state', 'connecting');
  await expect(banner).toContainText('Reconnecting to the Steward host…');
  await expect(banner).toContainText('connects again by itself');
  await expect(banner.locator('code').first()).toHaveText('npm start');
  // The history the page holds stays readable meanwhile.
  await expect(page.getByTestId('run-row')).toHaveCount(1);
  await shot(page, '02-reconnecting');

  host = await hostOn(dataDir, port);
  await expect(banner).toHaveCount(0, { timeout: 20_000 });
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: string }).sameDocument)).toBe('yes');
  expect(loads).toBe(1);
  await expect(page.getByTestId('run-row')).toHaveCount(1);
  await expect(page.getByTestId('run-row')).toContainText('Completed');
  await shot(page, '03-reconnected');

  // Not only connected: it works. A second run from the same tab, listed beside the first.
  await page.evaluate(() => (window.location.hash = '#/workflows'));
  await notes.getByTestId('run-button').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await page.evaluate(() => (window.location.hash = '#/runs'));
  await expect(page.getByTestId('run-row')).toHaveCount(2);
  // And a reload keeps its access (the token is the data folder's, not the launch's).
  await page.reload();
  await expect(page.getByTestId('run-row')).toHaveCount(2);
  await expect(banner).toHaveCount(0);

  // The link from before the restart, opened now in a fresh browser profile: it says it no longer works, and what to do.
  const late = await (await browser.newContext()).newPage();
  await late.goto(before);
  const refused = late.getByTestId('launch-refused');
  await expect(refused).toContainText('This link no longer works: it is from an earlier start of Steward');
  await expect(refused.locator('code').first()).toHaveText('steward open');
  await shot(late, '06-link-from-an-earlier-start');
});

test('a page the host on its port refuses (another data folder\'s Steward) stops trying and says what to do; steward open\'s link in the same tab connects it', async ({ browser }) => {
  const mine = dataFolder('mine');
  const first = await hostOn(mine, 0);
  const port = first.port;
  const page = await (await browser.newContext()).newPage();
  await page.goto((await steward(['open', '--print', '--data-dir', mine])).stdout.trim());
  await expect(page.getByTestId('workflow-card').first()).toBeVisible();
  await first.stop();

  const another = dataFolder('another');
  await hostOn(another, port);
  const banner = page.getByTestId('connection-banner');
  await expect(banner).toHaveAttribute('data-state', 'refused', { timeout: 20_000 });
  await expect(banner).toContainText(`Steward at 127.0.0.1:${port} no longer accepts this page.`);
  await expect(banner).toContainText('another data folder');
  await expect(banner).toContainText('This page does not try again by itself.');
  await expect(banner.locator('code').first()).toHaveText('steward open');
  await expect(banner.locator('.spinner')).toHaveCount(0);
  await shot(page, '04-refused');

  // Stopped trying: no new WebSocket in a few backoff periods.
  let sockets = 0;
  page.on('websocket', () => (sockets += 1));
  await page.waitForTimeout(3_000);
  expect(sockets).toBe(0);

  // What it said to do: a new link for the data folder that now runs there, opened in this tab.
  await page.goto((await steward(['open', '--print', '--data-dir', another])).stdout.trim());
  await expect(banner).toHaveCount(0, { timeout: 20_000 });
  await expect(page.getByTestId('workflow-card').first()).toBeVisible();
});

test('a page opened without its link (a bookmark, a typed address) says how to get one, instead of connecting for ever', async ({ browser }) => {
  const dataDir = dataFolder('bare');
  const host = await hostOn(dataDir, 0);
  const page = await (await browser.newContext()).newPage();
  await page.goto(`http://127.0.0.1:${host.port}/#/workflows`);
  const banner = page.getByTestId('connection-banner');
  await expect(banner).toHaveAttribute('data-state', 'refused');
  await expect(banner).toContainText('This page has no access to Steward yet.');
  await expect(banner.locator('code').first()).toHaveText('steward open');
  await shot(page, '05-no-access');
});
