import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { runIdFromUrl, shot } from './helpers';

// Real host, MCP server and IndexedDB; the demo's models are the replay provider (the model boundary).
test.describe.configure({ mode: 'serial' });

let host: HostProcess;
let dataDir: string;
let page: Page;
const card = (name: string) => page.getByTestId('workflow-card').filter({ hasText: name });

test.beforeAll(async ({ browser }) => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-waiting-'));
  host = await startHostProcess(dataDir);
  page = await browser.newPage();
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a run waiting for a person is counted in the sidebar, the title and its workflow card, listed in the Interventions view and answered there', async () => {
  await page.goto(host.url);
  await expect(card('Ask a human')).toBeVisible();
  const nav = page.getByTestId('nav-waiting');
  await expect(nav).toBeVisible();
  await expect(page.getByTestId('waiting-count')).toBeHidden();
  await expect(page).toHaveTitle('Steward');

  await card('Ask a human').getByTestId('run-button').click();
  await expect(page).toHaveURL(/#\/runs\//);
  const runId = runIdFromUrl(page.url());
  await expect(page.getByTestId('intervention-card')).toBeVisible({ timeout: 30_000 });

  await expect(page.getByTestId('waiting-count')).toHaveText('1');
  await expect(nav).toHaveAttribute('aria-label', '1 waiting for you');
  await expect(page).toHaveTitle(/^\(1\) Steward$/);

  // The workflow's card says it too, and leads to the view.
  await page.evaluate(() => (window.location.hash = '#/workflows'));
  await expect(card('Ask a human').getByTestId('workflow-waiting')).toHaveText('1 waiting for you');

  // By keyboard: the sidebar item opens the Interventions view.
  await nav.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#\/interventions$/);
  const view = page.getByTestId('interventions-view');
  const rows = view.getByTestId('intervention-row');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-run-id', runId);
  await expect(rows.first()).toHaveAttribute('data-kind', 'escalation');
  await expect(rows.first()).toContainText('Ask a human');
  await expect(rows.first()).toContainText('a person should approve');
  await expect(rows.first().getByTestId('intervention-open')).toHaveAttribute('href', `#/runs/${runId}`);
  await shot(page, '40-interventions-view');

  await rows.first().getByTestId('intervention-answer-here').click();
  await rows.first().getByTestId('intervention-approve').focus();
  await page.keyboard.press('Enter');

  await expect(view.getByTestId('interventions-empty')).toHaveText('Nothing waits for you.', { timeout: 30_000 });
  await expect(page.getByTestId('waiting-count')).toBeHidden();
  await expect(nav).toHaveAttribute('aria-label', 'Waiting for you: nothing');
  await expect(page).toHaveTitle('Steward');

  // The answer took: the run went on and completed.
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), runId);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
});

test('Cancel run and Stop the run ask first, by keyboard: focus goes to the confirm button, Escape keeps the run; the escalated candidate is pending while a person decides', async () => {
  await page.goto(host.url);
  await card('Ask a human').getByTestId('run-button').click();
  await expect(page.getByTestId('intervention-card')).toBeVisible({ timeout: 30_000 });
  const escalated = page.locator('[data-testid=round-card][data-outcome=escalated]').getByTestId('candidate');
  await expect(escalated).toHaveAttribute('data-pending', 'true');
  await expect(escalated).toHaveAttribute('data-rejected', 'false');
  await expect(escalated).toContainText('pending · waiting for your decision');

  // Cancel run: Enter asks, focus is on the confirm button; Escape closes the question and hands focus back.
  const cancel = page.getByTestId('cancel-button');
  await cancel.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('cancel-button-question')).toContainText('Cancel this run?');
  await expect(page.getByTestId('confirm-cancel-button')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('cancel-button-question')).toHaveCount(0);
  await expect(cancel).toBeFocused();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'waiting');

  // Stop the run, on the card: the same question; confirmed, the run ends cancelled.
  await page.getByTestId('intervention-stop').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('confirm-intervention-stop')).toBeFocused();
  await shot(page, '42-stop-asks-first');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'cancelled', { timeout: 30_000 });
  await expect(escalated).toHaveAttribute('data-pending', 'false');
});
