import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { summarize } from '../test-support/digest-workflows';
import { ownHostAndPage } from './own-host';

// Issue 29, workflows as agents (seed 004): a person adds a "Run a workflow" node in the editor,
// picks one of their stored workflows (its ports come with it), connects it, saves and runs, and
// sees under the node the child run with the intervention its teacher made inside it. Real host,
// real page; the models are the child's replay script (the test double at the model boundary).

const SHOTS = '/tmp/shots';
mkdirSync(SHOTS, { recursive: true });
const held = ownHostAndPage('subworkflow');

test('a Run a workflow node: picked in the editor, run, its child run and the teacher’s intervention inside it shown under the node', async () => {
  const { page, host } = held;
  await page.setViewportSize({ width: 1360, height: 900 });
  const dir = mkdtempSync(join(tmpdir(), 'steward-e2e-subworkflow-file-'));
  try {
    const file = join(dir, 'summarize.workflow.json');
    writeFileSync(file, JSON.stringify(summarize));
    await page.goto(host.url);
    await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 20_000 });
    await page.evaluate(() => (window.location.hash = '#/workflows'));
    await page.getByTestId('import-workflow-file').setInputFiles(file);
    await expect(page.getByTestId('open-workflow-summarize')).toBeVisible();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // The editor: the palette's "Run a workflow", then the stored workflow picked; its ports come with it.
  await page.evaluate(() => (window.location.hash = '#/workflows/new'));
  await expect(page.getByTestId('node-input')).toBeVisible();
  await expect(page.getByTestId('palette-item-workflow')).toContainText('Run a workflow');
  await page.getByTestId('palette-item-workflow').press('Enter');
  await expect(page.getByTestId('node-workflow')).toBeVisible();
  const pick = page.getByTestId('inspector-workflow-pick');
  if (!(await pick.isVisible())) await page.getByTestId('node-workflow').click();
  await pick.selectOption('summarize');
  // Named after the workflow it runs (its id follows, as any node's follows its name).
  await expect(page.getByTestId('node-summarize')).toBeVisible();
  await expect(page.getByTestId('inspector-workflow-inputs')).toContainText('text · text');
  await expect(page.getByTestId('inspector-workflow-outputs')).toContainText('summary · text');

  // Connected by keyboard: input.text → workflow.text, workflow.summary → output.result.
  await page.getByTestId('connect-input-text').focus();
  await page.keyboard.press('Enter');
  await page.getByRole('option', { name: /· text/ }).filter({ hasNotText: 'output' }).first().click();
  await expect(page.getByTestId('rf__edge-input.text->summarize.text')).toHaveCount(1);
  await page.getByTestId('connect-summarize-summary').focus();
  await page.keyboard.press('Enter');
  await page.getByRole('option', { name: /output · result/ }).click();
  await expect(page.getByTestId('rf__edge-summarize.summary->output.result')).toHaveCount(1);
  await expect(page.getByTestId('problems-list')).toHaveAttribute('data-count', '0', { timeout: 20_000 });
  await page.screenshot({ path: `${SHOTS}/workflow-node-editor.png` });

  await page.getByTestId('save-workflow').click();
  await expect(page.getByTestId('saved-indicator')).toBeVisible();
  await page.getByTestId('run-workflow').click();
  await page.getByTestId('run-input-text').fill('Release moved from Monday to next Monday.');
  await page.getByTestId('run-start').click();
  await page.getByTestId('open-run').click();
  await expect(page).toHaveURL(/#\/runs\//);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });

  // The run view: under the node, the child run, its outcome and the teacher's intervention inside it.
  const row = page.locator('[data-testid=node-invocation][data-invocation-id="summarize"]');
  await expect(row).toHaveAttribute('data-status', 'done');
  await row.locator('.node-inv__toggle').click();
  const child = row.getByTestId('node-child-run');
  await expect(child).toContainText('Ran Summarize');
  await expect(child.getByTestId('node-child-run-status')).toHaveText('Completed');
  await expect(child.getByTestId('node-child-interventions')).toContainText('the teacher replaced round 1: Name the slip.');
  await expect(row.getByTestId('node-outputs')).toContainText('The release slips a week.');
  await page.screenshot({ path: `${SHOTS}/workflow-node-run.png`, fullPage: true });
});

// The run above left a parent run and its child run (the same host: tests in a file keep their order).
test('the Runs list shows the child run under its parent (“part of run …”, the parent’s count of child runs), and opens it', async () => {
  const { page, host } = held;
  await page.setViewportSize({ width: 1360, height: 900 });
  await page.goto(host.url);
  await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 20_000 });
  await page.evaluate(() => (window.location.hash = '#/runs'));
  const child = page.locator('[data-testid=run-row][data-parent-run-id]');
  await expect(child).toHaveCount(1, { timeout: 20_000 });
  const parentId = await child.getAttribute('data-parent-run-id');
  const childId = await child.getAttribute('data-run-id');
  expect(childId).toBe(`${parentId}:summarize`);
  await expect(child).toContainText('Summarize');
  await expect(child.getByTestId('run-row-parent')).toContainText(`↳ Part of run ${parentId?.slice(0, 8)}`);
  await expect(child.getByTestId('run-row-parent')).toContainText('node summarize');
  const parent = page.locator(`[data-testid=run-row][data-run-id="${parentId}"]`);
  await expect(parent.getByTestId('run-row-children')).toHaveText('· 1 child run');
  // Newest first would list the child above the run that started it: it is listed right under it.
  expect(Number(await child.getAttribute('data-index'))).toBe(Number(await parent.getAttribute('data-index')) + 1);
  await page.screenshot({ path: `${SHOTS}/workflow-node-runs-list.png` });

  // Selecting the parent offers its child for export, and deleting would take it too (cancelled here).
  await parent.getByTestId('select-run').check();
  await expect(page.getByTestId('export-with-children')).toContainText('Export with their 1 child run');
  await page.getByTestId('delete-runs').click();
  await expect(page.getByTestId('delete-runs-dialog')).toContainText('Delete 1 run and its 1 child run?');
  await expect(page.getByTestId('confirm-delete-runs')).toHaveText('Delete 2 runs');
  await page.getByTestId('cancel-delete-runs').click();
  await parent.getByTestId('select-run').uncheck();

  // The child row opens the child run.
  await child.click();
  await expect(page).toHaveURL(/#\/runs\//);
  expect(decodeURIComponent(page.url())).toContain(`#/runs/${childId}`);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed');
  await expect(page.locator('[data-testid=node-invocation][data-invocation-id="writer"]')).toBeVisible();
  // It says whose part it is, and leads back there.
  await expect(page.getByTestId('run-parent-link')).toContainText(`part of run ${parentId?.slice(0, 8)}…, node summarize`);
  await page.screenshot({ path: `${SHOTS}/workflow-node-child-run.png` });
  await page.getByTestId('run-parent-link').click();
  await expect(page.locator('[data-testid=node-invocation][data-invocation-id="summarize"]')).toBeVisible();
});
