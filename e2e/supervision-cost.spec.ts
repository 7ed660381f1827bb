import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startFakeOpenAI, type FakeOpenAI } from '../test-support/fake-openai';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { shot } from './helpers';

// Issue 31: what supervision cost. A run of the real CLI whose teacher is an OpenAI-compatible
// TEST DOUBLE that bills tokens (1,200 in, 300 out), priced in the data folder's price list at $2 /
// $8 per million: the Runs list shows its supervision cost and tokens, the run report breaks them
// down, and a price changed in Settings reprices it.

let host: HostProcess | undefined;
let teacher: FakeOpenAI | undefined;
let dataDir: string;
let specDir: string;
const STEWARD = join(process.cwd(), 'bin', 'steward.mjs');

test.beforeAll(async () => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-cost-'));
  specDir = mkdtempSync(join(tmpdir(), 'steward-e2e-cost-spec-'));
  teacher = await startFakeOpenAI({
    chat: () => ({ message: { content: JSON.stringify({ verdict: 'accept', reason_codes: [], explanation: 'Fine.' }) }, usage: { prompt_tokens: 1200, completion_tokens: 300 } }),
  });
});

test.afterAll(async () => {
  await host?.stop();
  await teacher?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(specDir, { recursive: true, force: true });
});

/** `steward run FILE --json` in its own process (async: the teacher double answers in this one). */
function stewardRun(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [STEWARD, 'run', file, '--json', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

test('a run with a priced teacher: cost columns in Runs, the breakdown in the run report, repriced from Settings', async ({ page }) => {
  if (!teacher) throw new Error('the teacher double starts in beforeAll');
  const label = `${new URL(teacher.url).host}:teacher-x`;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dataDir, 'prices.json'), JSON.stringify({ format: 'steward-price-list/v1', prices: { [label]: { input_per_mtok_usd: 2, output_per_mtok_usd: 8 } } }), { mode: 0o600 });
  const file = join(specDir, 'priced.json');
  writeFileSync(
    file,
    JSON.stringify({
      format: 'steward/v1',
      kind: 'agent',
      id: 'priced-review',
      name: 'Priced review',
      instructions: 'Answer.',
      task: 'Say hello.',
      models: { student: { provider: 'script' }, teacher: { provider: 'openai_compatible', base_url: teacher.baseUrl, model: 'teacher-x' } },
      supervision: { enabled: true, phase: 2 },
      script: { latency_ms: 0, student: [{ json: { decision_type: 'complete', output: 'Hello.' } }], teacher: [] },
    }),
  );
  const cli = await stewardRun(file);
  expect(cli.code, cli.stderr).toBe(0);
  const { run_id: runId } = JSON.parse(cli.stdout) as { run_id: string };

  host = await startHostProcess(dataDir);
  await page.goto(host.url);
  await page.evaluate(() => (window.location.hash = '#/runs'));
  const row = page.getByTestId('run-row').and(page.locator(`[data-run-id="${runId}"]`));
  await expect(row).toBeVisible({ timeout: 15_000 });
  // (1,200 × $2 + 300 × $8) / 1M = $0.0048; 1,500 tokens.
  await expect(row.getByTestId('run-row-supervision-cost')).toHaveText('$0.0048');
  await expect(row.getByTestId('run-row-supervision-tokens')).toHaveText('1,500');
  await expect(page.getByRole('columnheader', { name: 'Supervision cost' })).toBeVisible();
  await shot(page, '31-runs-supervision-cost');

  await row.getByRole('link', { name: 'Priced review' }).click();
  const report = page.getByTestId('run-cost');
  await expect(report).toBeVisible();
  await expect(page.getByTestId('run-cost-summary')).toContainText('1 supervision call · $0.0048 · 1,200 in · 300 out');
  const teacherRow = page.getByTestId('run-cost-role').and(page.locator('[data-role="teacher"]'));
  await expect(teacherRow).toContainText(label);
  await expect(teacherRow.getByTestId('run-cost-usd')).toHaveText('$0.0048');
  // The replay student runs on this machine: $0, and its tokens are not reported (never a made-up 0).
  const studentRow = page.getByTestId('run-cost-role').and(page.locator('[data-role="student"]'));
  await expect(studentRow.getByTestId('run-cost-usd')).toHaveText('$0');
  await expect(studentRow).toContainText('not reported by the model');
  await shot(page, '31-run-report-cost');

  // Settings: the teacher's input price doubles; the report reprices at once.
  await page.evaluate(() => (window.location.hash = '#/settings'));
  const prices = page.getByTestId('prices-section');
  await expect(prices.getByTestId('price-label')).toHaveValue(label);
  await prices.getByTestId('price-input').fill('4');
  await prices.getByTestId('prices-save').click();
  await expect(prices.getByTestId('prices-status')).toContainText('Saved. 1 model is priced');
  await shot(page, '31-settings-prices');
  await page.goBack();
  // (1,200 × $4 + 300 × $8) / 1M = $0.0072.
  await expect(page.getByTestId('run-cost-summary')).toContainText('$0.0072');

  // Learning: the workflow's supervision cost over the period.
  await page.evaluate(() => (window.location.hash = '#/learning'));
  const perWorkflow = page.getByTestId('workflow-cost-row').and(page.locator('[data-workflow="priced-review"]'));
  await expect(perWorkflow.getByTestId('workflow-cost-usd')).toHaveText('$0.0072');
  await shot(page, '31-learning-workflow-costs');
});
