import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { askingSpecInput } from '../test-support/asking-spec';
import { shot } from './helpers';

// Issue 22: one data folder, one history. The real CLI (bin/steward.mjs), the real host process and
// a real page; the models are the replay provider (the model boundary).
test.describe.configure({ mode: 'serial' });

let host: HostProcess | undefined;
let dataDir: string;
let specDir: string;
let page: Page;
const STEWARD = join(process.cwd(), 'bin', 'steward.mjs');

/** An agent spec whose replay student plays these decisions. */
function spec(name: string, student: Array<Record<string, unknown>>): string {
  const file = join(specDir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ ...askingSpecInput(), id: name, name, script: { latency_ms: 0, student: student.map((json) => ({ json })), teacher: [] } }));
  return file;
}

test.beforeAll(async ({ browser }) => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-cli-app-'));
  specDir = mkdtempSync(join(tmpdir(), 'steward-e2e-cli-specs-'));
  mkdirSync(join(specDir, 'notes-sandbox'));
  writeFileSync(join(specDir, 'notes-sandbox', 'monday.md'), '# Monday\n- ship the editor\n');
  page = await browser.newPage();
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(specDir, { recursive: true, force: true });
});

const runRow = (runId: string) => page.getByTestId('run-row').and(page.locator(`[data-run-id="${runId}"]`));

test('the app stopped: a run of the command line is in the history, and the app lists it after it starts', async () => {
  const cli = spawnSync(process.execPath, [STEWARD, 'run', spec('alone', [{ decision_type: 'complete', output: 'Done alone.' }]), '--json', '--data-dir', dataDir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  expect(cli.status).toBe(0);
  const runId = (JSON.parse(cli.stdout) as { run_id: string }).run_id;
  host = await startHostProcess(dataDir);
  await page.goto(host.url);
  await page.evaluate(() => (window.location.hash = '#/runs'));
  await expect(runRow(runId)).toBeVisible({ timeout: 30_000 });
});

test('the app running: a command-line run appears live in Runs, with the run id the command printed', async () => {
  if (!host) throw new Error('the host starts in the test before');
  await page.evaluate(() => (window.location.hash = '#/runs'));
  await expect(page.getByTestId('runs-list')).toBeVisible();
  const cli = spawnSync(process.execPath, [STEWARD, 'run', spec('handed', [{ decision_type: 'complete', output: 'Done by the app.' }]), '--json', '--data-dir', dataDir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  expect(cli.status).toBe(0);
  const result = JSON.parse(cli.stdout) as { run_id: string; output: string };
  expect(result.output).toBe('Done by the app.');
  // The page was not reloaded: the host pushed the run to it.
  await expect(runRow(result.run_id)).toBeVisible({ timeout: 30_000 });
  await shot(page, '70-cli-run-in-runs');
});

test('the app running: a command-line run that waits is answered in the app, and the command, still attached, prints the result', async () => {
  if (!host) throw new Error('the host starts in the test before');
  const asks = spec('asks', [
    { decision_type: 'ask_user', question: 'Which note should I summarise?' },
    { decision_type: 'complete', output: 'Summarised monday.md.' },
  ]);
  const child = spawn(process.execPath, [STEWARD, 'run', asks, '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await expect.poll(() => stdout, { timeout: 30_000 }).toContain('waits for you');
  expect(stderr).toContain('waiting here for the answer');
  const runId = /the run (\S+) waits for you/.exec(stdout)?.[1] ?? '';

  await page.evaluate(() => (window.location.hash = '#/interventions'));
  const row = page.getByTestId('interventions-view').getByTestId('intervention-row').filter({ hasText: 'Which note should I summarise?' });
  await expect(row).toHaveAttribute('data-run-id', runId, { timeout: 30_000 });
  await row.getByTestId('intervention-answer-here').click();
  await row.getByLabel('Your reply to the agent').fill('The Monday notes.');
  await row.getByTestId('intervention-reply').click();

  expect(await exited).toBe(0);
  expect(stdout).toContain('Summarised monday.md.');
  expect(stdout).toMatch(/completed · \d+ round\(s\)/);
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), runId);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
});
