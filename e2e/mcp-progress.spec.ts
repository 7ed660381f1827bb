import { expect, test } from '@playwright/test';
import { connectHost } from '../test-support/host-process';
import { oneCallWorkflow } from '../test-support/elicitation-workflow';
import { shot } from './helpers';
import { ownHostAndPage } from './own-host';

/**
 * A slow MCP tool reports progress (issue 13): the shipped server-everything's long-running
 * operation, called by a scripted agent (the model boundary's test double), shows a progress bar
 * (role=progressbar, its value) in the run view while it runs, and none once the call ended.
 */

const own = ownHostAndPage('progress');

/** input → an agent (scripted) that calls the long-running operation once, then completes → output. */
const slowTool = oneCallWorkflow('slow-tool', 'Slow tool', { server: { id: 'ev', server: 'everything' }, tool: 'trigger-long-running-operation', arguments: { duration: 12, steps: 12 } });

test('a slow tool’s progress shows as a bar with its value while it runs, gone when the call ends', async () => {
  test.setTimeout(120_000);
  const { host, page } = own;
  const api = await connectHost(host);
  await api.request('workflows.save', { workflow: slowTool });
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible({ timeout: 30_000 });
  const { run_id } = (await api.request('workflows.run', { id: 'slow-tool', inputs: { name: 'x' } })) as { run_id: string };
  api.close();
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), run_id);
  // A bar for the call in flight, named for the tool, with its value (the server gives a total: determinate).
  const bar = page.getByRole('progressbar', { name: 'ev/trigger-long-running-operation progress' });
  await expect(bar).toBeVisible({ timeout: 40_000 });
  await expect(bar).toHaveAttribute('aria-valuenow', /^\d+$/);
  await expect(bar).toHaveAttribute('aria-valuetext', /\d+ of 12 \(\d+%\)/);
  await expect(page.getByTestId('tool-progress')).toContainText(/trigger-long-running-operation.*\d+ of 12/);
  // Keyboard users reach it too.
  await bar.focus();
  await expect(bar).toBeFocused();
  await shot(page, 'mcp-progress-live');
  // It moves on while the call runs.
  const first = Number(await bar.getAttribute('aria-valuenow'));
  await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 15_000 }).toBeGreaterThan(first);
  // Gone once the call ended; the run completes.
  await expect(page.getByTestId('tool-progress-bar')).toHaveCount(0, { timeout: 60_000 });
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  await shot(page, 'mcp-progress-done');
});
