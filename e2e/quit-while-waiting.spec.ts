import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { escalatingWithSlowChild, slowThought, storedIn } from '../test-support/escalating-workflow';
import { connectHost, startHostProcess, waitFor, type HostProcess } from '../test-support/host-process';
import { shot, theOneWaitingRow } from './helpers';

// The app quits (the host process gets SIGTERM) while a workflow waits for a person at one node and
// another node still runs (a workflow node, its child run going on): the question is there after the
// restart, the run says what happened, and the answer completes it; the child run cut off says so and
// links to the run its node started in its place. Real host processes, renderer and IndexedDB, the shipped filesystem server;
// the models are the replay provider's script (the test double at the model boundary).

let host: HostProcess | undefined;
let dataDir: string;

test.beforeAll(() => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-quit-waiting-'));
});

test.afterAll(async () => {
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('quitting while a workflow waits for you and another node still runs keeps the question; after the restart the run says so and the answer completes it', async ({ page }) => {
  test.setTimeout(180_000);
  const workspace = join(dataDir, 'workspaces', 'share');
  mkdirSync(workspace, { recursive: true });
  host = await startHostProcess(dataDir);
  const api = await connectHost(host);
  await api.request('events.subscribe', {});
  await api.request('workspaces.register', { workspace: { id: 'share', path: workspace } });
  // The slow node runs a stored workflow that makes a folder, then thinks for 12 s (its agent): it outlasts the quit.
  await api.request('workflows.save', { workflow: slowThought(12_000, 'pondered', true) });
  const workflow = storedIn(escalatingWithSlowChild(workspace, 12_000), 'share');
  await api.request('workflows.save', { workflow });
  const { run_id } = (await api.request('workflows.run', { id: workflow.id, inputs: { name: 'shared.md' } })) as { run_id: string };
  await waitFor(() => api.events.some((e) => e.run_id === run_id && e.type === 'intervention.requested'), 60_000, 'the question to the person');
  // The quit comes once the slow node's run has made its folder (a quit mid-call would leave that call refused for good).
  await waitFor(() => api.events.some((e) => e.run_id === `${run_id}:slow` && e.type === 'tool.executed'), 60_000, 'the folder made by the slow node\'s run');
  api.close();

  await host.stop('SIGTERM');
  host = await startHostProcess(dataDir);

  const row = await theOneWaitingRow(page, host.url);
  await expect(row).toContainText('A person should approve what gets shared.');

  await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), run_id);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'waiting', { timeout: 30_000 });
  // Said in words: the node shown running was stopped with the host and starts again on the answer.
  await expect(page.getByTestId('pending-node-stopped')).toContainText('The host stopped while this run waited for you, and slow was stopped with it: it starts again once you answer');
  await expect(page.getByTestId('pending-node-others-running')).toHaveCount(0);
  await expect(page.getByTestId('node-counts')).not.toContainText('running');
  await shot(page, 'quit-while-waiting-after-restart');

  await page.getByTestId('intervention-card').getByTestId('intervention-approve').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 120_000 });
  expect(readFileSync(join(workspace, 'shared.md'), 'utf8')).toBe('shared');

  // The slow node lists its child run cut off by the quit, then the one it started in its place.
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}/nodes/slow`), run_id);
  const children = page.getByTestId('node-child-run');
  await expect(children).toHaveCount(2);
  await expect(children.nth(0).getByTestId('node-child-run-status')).toHaveText('Interrupted');
  await expect(children.nth(1).getByTestId('node-child-run-status')).toHaveText('Completed');
  const [cutOff, wentOn] = await children.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-child-run-id')));
  // The cut-off run's own page says so and links to the run that went on.
  await children.nth(0).getByRole('link', { name: 'Open its run' }).click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'interrupted');
  await expect(page.getByTestId('run-parent-link')).toContainText('node slow');
  await shot(page, 'quit-while-waiting-child-cut-off');
  await page.getByTestId('run-restarted-as').click();
  await expect(page).toHaveURL(new RegExp(`#/runs/${encodeURIComponent(wentOn ?? '')}`));
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed');
  await expect(page.getByTestId('run-restarted-as')).toHaveCount(0);
  expect(cutOff).not.toBe(wentOn);
  // Its folder was made by the first start: the same call is given the result it got then, and says so.
  await page.locator('[data-testid="node-invocation"][data-node="mk"] .node-inv__toggle').click();
  await expect(page.getByTestId('round-result-given-again')).toContainText('The result it got then is given again; the call was not made twice.');
  await shot(page, 'quit-while-waiting-result-given-again');
});
