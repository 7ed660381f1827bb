import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { connectHost, startHostProcess, waitFor, type HostProcess } from '../test-support/host-process';
import { EXAMPLES } from '../test-support/workspace';
import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';
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

test('a finished workflow run replays dry from its page: the replay lists its node invocations and finds no differences', async ({ page }) => {
  // The shipped folder-triage example, kept on the host as the app keeps it (a registered folder, the shipped filesystem server).
  const sandbox = join(dataDir, 'workspaces', 'triage');
  mkdirSync(join(dataDir, 'workspaces'), { recursive: true });
  cpSync(join(EXAMPLES, 'triage-sandbox'), sandbox, { recursive: true });
  const example = JSON.parse(readFileSync(join(EXAMPLES, 'folder-triage.workflow.json'), 'utf8')) as { servers: { id: string; tools?: string[] }[] } & Record<string, unknown>;
  const workflow = HostedWorkflowGraph.parse({ ...example, workspace: 'triage', servers: example.servers.map((s) => ({ id: s.id, server: 'filesystem', ...(s.tools ? { tools: s.tools } : {}) })) });
  const api = await connectHost(host);
  await api.request('events.subscribe', {});
  await api.request('workspaces.register', { workspace: { id: 'triage', path: sandbox } });
  await api.request('workflows.save', { workflow });
  const { run_id: recorded } = (await api.request('workflows.run', { id: 'folder-triage', inputs: {} })) as { run_id: string };
  await waitFor(() => api.events.some((e) => e.type === 'run.finished' && e.run_id === recorded), 60_000, 'the workflow run to end');
  api.close();

  // The access link first (it works once), then the run's page in the same tab.
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible({ timeout: 30_000 });
  await page.evaluate((hash) => {
    window.location.hash = hash;
  }, `#/runs/${recorded}/nodes`);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await page.getByTestId('replay-button').click();
  await expect(page.getByRole('radio', { name: /a dry run/ })).toBeChecked();
  await page.getByTestId('replay-submit').click();
  await expect(page).not.toHaveURL(new RegExp(recorded));
  await expect(page).toHaveURL(/\/nodes/);
  await expect(page.getByTestId('replay-of')).toHaveAttribute('href', `#/runs/${recorded}/nodes`);
  await expect(page.locator('.run-head').getByText('Dry run', { exact: true })).toBeVisible();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  await expect(page.getByTestId('differences-none')).toContainText(/No differences: every node invocation \(\d+\) made the recorded decisions and ended as recorded\./);
  await shot(page, 'replay-workflow-no-differences');
});
