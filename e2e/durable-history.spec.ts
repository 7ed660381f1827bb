import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

// The settings a person made follow too (profiles.json on the host): an imported model profile, the
// Guarded writes workflow's choice of it and its supervision switch (no other test here runs it).
const guardedCard = (page: Page) => page.getByTestId('workflow-card').filter({ hasText: 'Guarded writes' });
const E2E_PROFILE = { kind: 'student', id: 'e2e-replay-student', name: 'E2E replay student', version: 1, created_at: '2026-11-30T10:00:00.000Z', description: '', model: { provider: 'script' } };

async function chooseSettings(page: Page): Promise<void> {
  await page.evaluate(() => (window.location.hash = '#/settings'));
  const bundle = JSON.stringify({ format: 'steward-profiles/v1', exported_at: '2026-11-30T10:00:00.000Z', profiles: [E2E_PROFILE] });
  await page.getByTestId('profiles-import-file').setInputFiles({ name: 'profiles.json', mimeType: 'application/json', buffer: Buffer.from(bundle) });
  await expect(page.locator(`[data-testid=profile-item][data-profile-id="${E2E_PROFILE.id}"]`)).toBeVisible();
  await page.evaluate(() => (window.location.hash = '#/'));
  const student = guardedCard(page).getByTestId('model-select-student');
  const option = await student.locator('option', { hasText: E2E_PROFILE.name }).getAttribute('value');
  await student.selectOption(option ?? '');
  await expect(student.locator('option:checked')).toContainText(E2E_PROFILE.name);
  await guardedCard(page).getByTestId('supervision-toggle').click();
  await expect(guardedCard(page).getByTestId('supervision-toggle')).toHaveAttribute('aria-checked', 'false');
  // The page sends each change as it is saved; the host keeps it before it stops.
  await expect.poll(() => hostKept('guarded-writes')).toMatchObject({ supervision_enabled: false, profiles: { student: { id: E2E_PROFILE.id, version: 1 } } });
}

/** The workflow's choices as the host keeps them in its data folder. */
function hostKept(workflowId: string): unknown {
  if (!existsSync(join(dataDir, 'profiles.json'))) return undefined;
  const stored = JSON.parse(readFileSync(join(dataDir, 'profiles.json'), 'utf8')) as { workflow_choices: { workflow_id: string }[] };
  return stored.workflow_choices.find((c) => c.workflow_id === workflowId);
}

async function expectSettingsFollowed(page: Page): Promise<void> {
  await page.evaluate(() => (window.location.hash = '#/'));
  await expect(guardedCard(page).getByTestId('model-select-student').locator('option:checked')).toContainText(E2E_PROFILE.name);
  await expect(guardedCard(page).getByTestId('supervision-toggle')).toHaveAttribute('aria-checked', 'false');
  await page.evaluate(() => (window.location.hash = '#/settings'));
  await expect(page.locator(`[data-testid=profile-item][data-profile-id="${E2E_PROFILE.id}"]`)).toBeVisible();
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

test('a finished run comes back after a restart on a NEW port: listed with its real workflow and models, every event stored once; the profile a person imported and a workflow\'s choices follow', async ({ browser }) => {
  host = await startHostProcess(dataDir);
  const page = await openPage(browser);
  await notesCard(page).getByTestId('run-button').click();
  await expect(page).toHaveURL(/#\/runs\//);
  notesRun = runIdFromUrl(page.url());
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  notesEvents = await expectWholeRun(page, notesRun);
  await chooseSettings(page);

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
  await expectSettingsFollowed(page);
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
  // The decision keeps its effect label: it comes from the recorded round, not from the live run.
  await expect(waiting.locator('.effect')).toHaveText('Irreversible write');
  await shot(page, '41-waiting-run-after-restart-new-port');
  await waiting.getByTestId('intervention-approve').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expectWholeRun(page, runId);
});
