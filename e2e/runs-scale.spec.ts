import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { syntheticRuns } from '../src-renderer/screens/runs/synthetic-runs';
import { runIdFromUrl, shot, storedEvents } from './helpers';

test.describe.configure({ mode: 'serial' });
// Seeding 10,000 rows and walking the list is IndexedDB-bound: on a slow disk (a 4 KB synced write at
// 4.7 ms instead of 0.4 ms) it took longer than the default 90 s, and with the other e2e worker busy
// the seed alone took 189 s once (26–31 s on its own). Room, not a speed claim.
test.setTimeout(360_000);

let host: HostProcess;
let dataDir: string;

test.beforeAll(async () => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-scale-'));
  host = await startHostProcess(dataDir);
});

test.afterAll(async () => {
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const RUNS = 10_000;
const runs = syntheticRuns(RUNS, 11);

/**
 * Puts the rows straight into the page's IndexedDB (the app's database, once the app has opened it
 * at its version). The workflow cards can show before the page's database code has opened it (it
 * loads as its own chunk): opening 'steward' first would create an empty database the app must then
 * upgrade past this connection, so wait until the app's stores are there, and fail loudly, not hang.
 */
async function seedRuns(page: Page) {
  await page.evaluate(
    (rows) =>
      new Promise<void>((resolve, reject) => {
        const attempt = async (left: number): Promise<void> => {
          const known = (await indexedDB.databases()).find((d) => d.name === 'steward');
          if (!known || (known.version ?? 0) <= 1) {
            if (left === 0) return reject(new Error("the app never opened its 'steward' database"));
            setTimeout(() => void attempt(left - 1), 100);
            return;
          }
          const open = indexedDB.open('steward');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const db = open.result;
            // A transaction per 500 rows, one after the other: one transaction of all 10,000 took
            // 6× longer under load (its commit is one huge write), and nothing here needs them atomic.
            const putFrom = (start: number): void => {
              if (start >= rows.length) {
                db.close();
                resolve();
                return;
              }
              try {
                const tx = db.transaction('runs', 'readwrite');
                for (const row of rows.slice(start, start + 500)) tx.objectStore('runs').put(row);
                tx.oncomplete = () => putFrom(start + 500);
                tx.onerror = () => (db.close(), reject(tx.error));
              } catch (err) {
                db.close();
                reject(err instanceof Error ? err : new Error(String(err)));
              }
            };
            putFrom(0);
          };
        };
        void attempt(300);
      }),
    runs,
  );
}

const rowCount = (page: Page) => page.getByTestId('run-row').count();

test('10,000 runs: fewer than 200 rows in the page however far it scrolls, and a run found by a word of its task', async ({ page }) => {
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible();
  const seeding = Date.now();
  await seedRuns(page);
  console.log(`runs-scale: seeded ${RUNS} runs in ${Date.now() - seeding} ms`);

  const started = Date.now();
  await page.goto(`${host.url.split('#')[0]}#/runs`);
  await expect(page.getByTestId('run-row').first()).toBeVisible();
  const firstRowMs = Date.now() - started;
  expect(await rowCount(page)).toBeLessThan(200);
  await expect(page.getByTestId('runs-count')).toContainText(`${RUNS.toLocaleString('en-US')} runs`);
  await shot(page, 'runs-scale-01-list', false);

  // Scroll to the end of what is loaded, again and again: pages load, the DOM stays small.
  for (let i = 0; i < 8; i++) {
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.waitForTimeout(150);
    expect(await rowCount(page)).toBeLessThan(200);
  }
  const deepest = await page.getByTestId('run-row').last().getAttribute('data-index');
  expect(Number(deepest)).toBeGreaterThan(300);

  // A word from one run's task finds it.
  const target = runs[4321]!;
  const searchStarted = Date.now();
  await page.getByTestId('runs-search').fill(target.task!);
  await expect(page.locator(`[data-testid=run-row][data-run-id="${target.run_id}"]`)).toBeVisible();
  const searchMs = Date.now() - searchStarted;
  // Speed is measured (bench/runs-query.ts, docs/benchmarks.md), not asserted here: the figure is only printed.

  // Status filter: only failed runs listed.
  await page.getByTestId('runs-search').fill('');
  await page.getByTestId('runs-filter-status').selectOption('failed');
  await expect(page.getByTestId('runs-count')).toContainText('matching');
  const statuses = () => page.locator('[data-testid=run-row] [data-status]').evaluateAll((els) => [...new Set(els.map((e) => e.getAttribute('data-status')))]);
  await expect.poll(statuses).toEqual(['failed']);

  // Nothing matches: say so, and clearing shows every run again.
  await page.getByTestId('runs-search').fill('no-such-word-anywhere');
  await expect(page.getByTestId('runs-no-match')).toBeVisible();
  await page.getByTestId('runs-no-match').getByRole('button', { name: 'Clear filters' }).click();
  await expect(page.getByTestId('runs-count')).toContainText(`${RUNS.toLocaleString('en-US')} runs`);
  expect(await rowCount(page)).toBeLessThan(200);

  console.log(`runs-scale: first row after ${firstRowMs} ms (navigation included), a run found by its task in ${searchMs} ms`);
});

test('a 2,000-event trace: fewer than 200 events in the page, a cited event opened and scrolled to, JSON only for opened events', async ({ page }) => {
  // A real run first (the replay demo), then its rounds repeated into one long trace of the same shapes.
  await page.goto(host.url);
  await page.getByTestId('workflow-card').filter({ hasText: 'Notes assistant' }).getByTestId('run-button').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  const runId = runIdFromUrl(page.url());
  const events = await storedEvents(page, runId);
  const longId = `${runId}-long`;
  const total = await page.evaluate(
    ({ source, sourceId, id }) =>
      new Promise<number>((resolve, reject) => {
        const sorted = [...source].sort((a, b) => a.seq - b.seq);
        const [first, ...rest] = sorted;
        const middle = rest.filter((e) => e.type !== 'run.finished');
        const finished = rest.find((e) => e.type === 'run.finished');
        const rounds = 1 + Math.max(...middle.map((e) => ('round' in e && typeof e.round === 'number' ? e.round : 0)));
        const out: Record<string, unknown>[] = [];
        const add = (e: Record<string, unknown>) => out.push({ ...e, run_id: id, seq: out.length, id: `${id}:${out.length}` });
        add(first!);
        for (let k = 0; out.length < 2080; k++) for (const e of middle) add('round' in e && typeof e.round === 'number' ? { ...e, round: e.round + k * rounds } : e);
        add({ ...finished!, event_count: out.length + 1 });
        const open = indexedDB.open('steward');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const tx = db.transaction(['runs', 'events'], 'readwrite');
          const row = tx.objectStore('runs').get(sourceId);
          row.onsuccess = () => tx.objectStore('runs').put({ ...row.result, run_id: id, stored_events: out.length, event_count: out.length });
          for (const e of out) tx.objectStore('events').put(e);
          tx.oncomplete = () => (db.close(), resolve(out.length));
          tx.onerror = () => reject(tx.error);
        };
      }),
    { source: events as unknown as (Record<string, unknown> & { seq: number; type: string })[], sourceId: runId, id: longId },
  );
  expect(total).toBeGreaterThan(2000);

  const cited = 2000;
  await page.evaluate((h) => (window.location.hash = h), `#/runs/${longId}/trace/${cited}`);
  const event = page.locator(`[data-testid=trace-event][data-seq="${cited}"]`);
  await expect(event).toHaveAttribute('open', '');
  await expect(event).toBeInViewport();
  await expect(event.locator('pre')).toContainText(`"seq": ${cited}`);
  expect(await page.getByTestId('trace-event').count()).toBeLessThan(200);
  expect(await page.locator('[data-testid=trace-event] pre').count()).toBe(1);
  await shot(page, 'runs-scale-02-trace', false);

  // Opening another event builds its JSON; closing it drops it again.
  const other = page.locator(`[data-testid=trace-event][data-seq="${cited + 3}"]`);
  await other.locator('summary').click();
  await expect(other.locator('pre')).toBeVisible();
  await other.locator('summary').click();
  await expect(other.locator('pre')).toHaveCount(0);

  // The tree's keys: Enter closes the cited event's JSON; ArrowLeft goes up to the span holding it, again closes
  // that span (its events leave the page), Enter opens it again.
  await page.locator(`[role=treeitem]:has(> [data-testid=trace-event][data-seq="${cited}"])`).focus();
  await page.keyboard.press('Enter');
  await expect(event.locator('pre')).toHaveCount(0);
  await page.keyboard.press('ArrowLeft');
  const span = page.locator('[role=treeitem]:focus');
  await expect(span).toHaveAttribute('aria-expanded', 'true');
  await page.keyboard.press('ArrowLeft');
  await expect(span).toHaveAttribute('aria-expanded', 'false');
  await expect(event).toHaveCount(0);
  await page.keyboard.press('Enter');
  await expect(event).toBeVisible();
  await shot(page, 'runs-scale-03-trace-keys', false);
});
