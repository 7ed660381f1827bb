import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ownHostAndPage } from './own-host';
import { runIdFromUrl } from './helpers';
import { wordCheckWorkflow } from '../test-support/word-check-workflow';

// Issue 28, "Outcomes that tell the truth": a workflow whose iterate lost an item (an assert refused
// it) is not a success. Real host, real page, real IndexedDB; the workflow has no model at all.

const SHOTS = '/tmp/shots';
mkdirSync(SHOTS, { recursive: true });
const held = ownHostAndPage('partial');

const WORKFLOW = wordCheckWorkflow({ id: 'word-check', name: 'Word check', description: 'Keeps the words made of lowercase letters.' });

/** Runs the imported workflow from its Run button with these words; returns the run's id once it ended. */
async function runWith(page: Page, words: string[]): Promise<string> {
  await page.evaluate(() => (window.location.hash = '#/workflows'));
  await page.getByTestId('run-workflow-word-check').click();
  await page.getByTestId('run-input-words').fill(JSON.stringify(words));
  await page.getByTestId('run-start').click();
  await page.getByTestId('open-run').click();
  await expect(page).toHaveURL(/#\/runs\//);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', /^(completed|completed_with_failures|failed)$/, { timeout: 30_000 });
  return runIdFromUrl(page.url());
}

test('an iterate that lost an item: the run says "Completed · 1 of 5 items failed" (not Completed) in its header and in Runs, names the item, gives the reason one click away, and Runs filters by it', async () => {
  const { page, host } = held;
  const dir = mkdtempSync(join(tmpdir(), 'steward-e2e-partial-file-'));
  try {
    const file = join(dir, 'word-check.workflow.json');
    writeFileSync(file, JSON.stringify(WORKFLOW));
    await page.goto(host.url);
    await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 20_000 });
    // The person's own workflow, imported from a file.
    await page.evaluate(() => (window.location.hash = '#/workflows'));
    await page.getByTestId('import-workflow-file').setInputFiles(file);
    await expect(page.getByTestId('open-workflow-word-check')).toBeVisible();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // A clean run first: every word passes, a plain "Completed".
  const clean = await runWith(page, ['apple', 'cherry']);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed');
  await expect(page.getByTestId('run-partial')).toHaveCount(0);

  // "Banana!" is refused: item 2 of 5.
  const lost = await runWith(page, ['apple', 'Banana!', 'cherry', 'date', 'elder']);
  const status = page.getByTestId('run-status');
  await expect(status).toHaveAttribute('data-status', 'completed_with_failures');
  await expect(status).toHaveText('Completed · 1 of 5 items failed');
  const partial = page.getByTestId('run-partial');
  await expect(partial).toContainText('1 of 5 items failed: work · item 2.');
  await expect(partial).toContainText('the run is not a success');
  // The reason is one click away, not on the surface.
  const reason = partial.getByTestId('run-partial-item');
  await expect(reason).toBeHidden();
  await page.screenshot({ path: `${SHOTS}/28-partial-run-header.png` });
  await partial.getByText('Why it failed').click();
  await expect(reason).toBeVisible();
  await expect(reason).toContainText('work · item 2: check 1 (regex): the value does not match /^[a-z]+$/');
  await expect(reason).toContainText('assert_failed');
  await page.screenshot({ path: `${SHOTS}/28-partial-run-reason.png` });
  // The result keeps what the other four items gave.
  await expect(page.getByTestId('run-final')).toContainText('cherry');
  // The item's link opens it among the run's nodes.
  await reason.getByRole('link', { name: 'work · item 2' }).click();
  await expect(page.locator('[data-testid=node-invocation][data-invocation-id="work[each=1]"]')).toHaveAttribute('data-status', 'failed');
  await expect(page.getByTestId('node-failure')).toContainText('the value does not match');

  // Runs: its own status, not green Completed; the filter finds it and leaves the clean run out.
  await page.evaluate(() => (window.location.hash = '#/runs'));
  const lostRow = page.locator(`[data-testid=run-row][data-run-id="${lost}"]`);
  const cleanRow = page.locator(`[data-testid=run-row][data-run-id="${clean}"]`);
  await expect(lostRow.locator('[data-status]').first()).toHaveText('Completed · 1 of 5 items failed');
  await expect(cleanRow.locator('[data-status]').first()).toHaveText('Completed');
  await page.screenshot({ path: `${SHOTS}/28-partial-runs-list.png` });
  const filter = page.getByTestId('runs-filter-status');
  await expect(filter.locator('option[value="completed_with_failures"]')).toHaveText('Completed with failures');
  await filter.selectOption('completed_with_failures');
  await expect(lostRow).toBeVisible();
  await expect(cleanRow).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/28-partial-runs-filtered.png` });
  await filter.selectOption('completed');
  await expect(cleanRow).toBeVisible();
  await expect(lostRow).toHaveCount(0);
});
