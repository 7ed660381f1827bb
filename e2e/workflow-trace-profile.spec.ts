import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { RunEvent } from '../src-shared/contracts/events';
import { hostedEcho } from '../test-support/echo-workflow';
import { ensureBuilt } from '../test-support/ensure-built';
import { connectHost, startHostProcess, waitFor, type HostProcess } from '../test-support/host-process';
import { shot } from './helpers';

let host: HostProcess;
let dataDir: string;

test.beforeAll(async () => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-wf-trace-'));
  host = await startHostProcess(dataDir);
});

test.afterAll(async () => {
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("a workflow's own trace profile, chosen in the editor, is kept on the host and gives its runs their retention", async ({ page }) => {
  const api = await connectHost(host);
  await api.request('events.subscribe', {});
  const created_at = new Date().toISOString();
  await api.request('profiles.save', { profiles: [{ origin: 'user', profile: { kind: 'trace', id: 'keep-2', name: 'Keep 2', version: 1, created_at, description: '', trace: { include_tool_results: true, retention_runs: 2 } } }], workflow_choices: [] });
  await api.request('workflows.save', { workflow: hostedEcho('echo') });

  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible({ timeout: 30_000 });
  await page.evaluate(() => {
    window.location.hash = '#/workflows/echo/edit';
  });
  const select = page.getByTestId('workflow-trace-profile');
  await expect(select.locator('option', { hasText: 'Keep 2 · v1 — newest 2 runs kept' })).toHaveCount(1, { timeout: 20_000 });
  await select.selectOption('keep-2@1');
  await expect
    .poll(async () => ((await api.request('profiles.list', {})) as { workflow_choices: Array<{ workflow_id: string; profiles: { trace?: { id: string } } }> }).workflow_choices.find((c) => c.workflow_id === 'echo')?.profiles.trace?.id)
    .toBe('keep-2');
  await shot(page, 'workflow-trace-profile');

  // Run from the editor with the Run form's default: the workflow's own choice.
  await page.getByTestId('run-workflow').click();
  await expect(page.getByTestId('run-trace-profile')).toHaveValue('');
  await page.getByTestId('run-input-name').fill('Ada');
  await page.getByTestId('run-start').click();
  const started = () => api.events.find((e): e is Extract<RunEvent, { type: 'workflow.started' }> => e.type === 'workflow.started');
  await waitFor(() => started() !== undefined, 30_000, 'the run to start');
  expect(started()).toMatchObject({ retention: { runs: 2 }, trace_profile: { id: 'keep-2', name: 'Keep 2', version: 1 } });
  api.close();
});
