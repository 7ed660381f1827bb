import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import type { RunEvent } from '../src-shared/contracts/events';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { runIdFromUrl, shot, storedEvents } from './helpers';

// Issue 9, "it does not last": the host's journal is the source of truth and the page's IndexedDB
// an index of it. Everything is real (host process, MCP server, IndexedDB) except the models: the
// demo workflows run on the replay provider, the test double at the model boundary.
test.describe.configure({ mode: 'serial' });

let host: HostProcess;
let dataDir: string;
const contexts: BrowserContext[] = [];
let notesRun: string;
let notesEvents: RunEvent[];

const notesCard = (page: Page) => page.getByTestId('workflow-card').filter({ hasText: 'Notes assistant' });

async function openPage(browser: Browser): Promise<Page> {
  // A context per page: its own profile, as a second browser or a private window would be.
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible();
  return page;
}

/** Every event of the run stored exactly once: as many as its run.finished counts, no id twice, seq 0…n-1. */
async function expectWholeRun(page: Page, runId: string): Promise<RunEvent[]> {
  await expect.poll(async () => (await storedEvents(page, runId)).some((e) => e.type === 'run.finished'), { timeout: 30_000 }).toBe(true);
  const finished = (await storedEvents(page, runId)).find((e) => e.type === 'run.finished');
  const count = finished?.type === 'run.finished' ? finished.event_count : -1;
  await expect.poll(async () => (await storedEvents(page, runId)).length).toBe(count);
  const events = (await storedEvents(page, runId)).sort((a, b) => a.seq - b.seq);
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  return events;
}

async function expectRunListed(page: Page, runId: string, events: RunEvent[], status = 'completed'): Promise<void> {
  const started = events.find((e) => e.type === 'run.started');
  if (started?.type !== 'run.started') throw new Error('the run has no run.started');
  await page.evaluate(() => (window.location.hash = '#/runs'));
  const row = page.locator(`[data-testid=run-row][data-run-id="${runId}"]`);
  await expect(row).toContainText(started.spec_name);
  await expect(row).toContainText(started.models.student);
  await expect(row).toContainText(started.models.teacher);
  await row.click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', status);
}

test.beforeAll(() => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-history-'));
});

test.afterAll(async () => {
  for (const context of contexts.splice(0)) await context.close();
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a finished run comes back after a restart on a NEW port: listed with its real workflow and models, every event stored once', async ({ browser }) => {
  host = await startHostProcess(dataDir);
  const page = await openPage(browser);
  await notesCard(page).getByTestId('run-button').click();
  await expect(page).toHaveURL(/#\/runs\//);
  notesRun = runIdFromUrl(page.url());
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  notesEvents = await expectWholeRun(page, notesRun);

  const oldPort = host.port;
  await host.stop();
  host = await startHostProcess(dataDir); // --port 0: another origin, so another (empty) IndexedDB
  expect(host.port).not.toBe(oldPort);
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible();
  const again = await expectWholeRun(page, notesRun);
  expect(again).toEqual(notesEvents);
  await expectRunListed(page, notesRun, notesEvents);
  await shot(page, '40-history-after-restart-new-port');
});

test('two browser profiles, one reloading mid-run: both end with every event exactly once', async ({ browser }) => {
  const a = await openPage(browser);
  const b = await openPage(browser);
  await notesCard(a).getByTestId('run-button').click();
  await expect(a).toHaveURL(/#\/runs\//);
  const runId = runIdFromUrl(a.url());
  await b.evaluate((id) => (window.location.hash = `#/runs/${id}`), runId);
  const firstRound = (p: Page) => p.locator('[data-testid=round-card][data-round="0"]');
  await expect(firstRound(b)).toHaveAttribute('data-outcome', 'executed');
  await expect(b.getByTestId('run-status')).toHaveAttribute('data-status', 'running');
  await b.reload();
  await expect(firstRound(b)).toHaveAttribute('data-outcome', 'executed');

  await expect(a.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect(b.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  const inA = await expectWholeRun(a, runId);
  const inB = await expectWholeRun(b, runId);
  expect(inB).toEqual(inA);
  // The earlier run reached both profiles too, each event once.
  expect(await expectWholeRun(b, notesRun)).toEqual(notesEvents);
});

test('cleared site data (the steward database deleted): after a reload the history comes back', async ({ browser }) => {
  const page = await openPage(browser);
  expect(await expectWholeRun(page, notesRun)).toEqual(notesEvents);
  await page.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        // The app's connection closes itself on versionchange (Dexie), so the delete goes through.
        const request = indexedDB.deleteDatabase('steward');
        request.onsuccess = () => resolve();
        request.onerror = () => reject(request.error);
      }),
  );
  await page.reload();
  await expect(page.getByTestId('workflow-card').first()).toBeVisible();
  expect(await expectWholeRun(page, notesRun)).toEqual(notesEvents);
  await expectRunListed(page, notesRun, notesEvents);
});

test('a run waiting for a person is listed after a restart on a new port with its real workflow and models, and is answered there', async ({ browser }) => {
  const page = await openPage(browser);
  await page.getByTestId('workflow-card').filter({ hasText: 'Ask a human' }).getByTestId('run-button').click();
  await expect(page.getByTestId('intervention-card')).toBeVisible({ timeout: 30_000 });
  const runId = runIdFromUrl(page.url());
  const before = await storedEvents(page, runId);

  const oldPort = host.port;
  await host.stop();
  host = await startHostProcess(dataDir);
  expect(host.port).not.toBe(oldPort);
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible();
  await expect.poll(async () => (await storedEvents(page, runId)).length).toBeGreaterThanOrEqual(before.length);
  await expectRunListed(page, runId, before, 'waiting');
  const waiting = page.getByTestId('intervention-card');
  await expect(waiting).toBeVisible();
  await shot(page, '41-waiting-run-after-restart-new-port');
  await waiting.getByTestId('intervention-approve').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expectWholeRun(page, runId);
});
