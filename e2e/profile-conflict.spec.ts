import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type BrowserContext } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { connectHost, startHostProcess, type HostProcess } from '../test-support/host-process';
import { shot } from './helpers';
import { startHostOnPort } from './host-on-port';

// Issue 9 leftover: two browsers each saved v2 of the same profile. This one edits while the host is down; the other's
// v2 reached the host meanwhile (written into the data folder's profiles.json, as that host kept it). When this page
// reconnects it sees both versions side by side, keeps its own, and it becomes v3 everywhere (the host's v2 stays v2).
test.describe.configure({ mode: 'serial' });
test.setTimeout(180_000);

let host: HostProcess;
let dataDir: string;
let context: BrowserContext | undefined;

const ID = 'shared-student-e2e';
const profile = (version: number, description: string, created_at: string) => ({
  id: ID,
  version,
  name: 'Shared student',
  description,
  created_at,
  kind: 'student' as const,
  model: { provider: 'ollama' as const, model: 'qwen3:4b' },
});

test.beforeAll(async () => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-profile-conflict-'));
  host = await startHostProcess(dataDir);
});

test.afterAll(async () => {
  await context?.close();
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a profile version saved differently in two browsers shows both; keep mine saves it as the next version everywhere', async ({ browser }) => {
  const api = await connectHost(host);
  await api.request('profiles.save', { profiles: [{ origin: 'user', profile: profile(1, 'First.', '2026-12-01T09:00:00.000Z') }], workflow_choices: [] });

  context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible();
  await page.evaluate(() => (window.location.hash = '#/settings'));
  const item = page.locator(`[data-testid=profile-item][data-profile-id="${ID}"]`);
  await expect(item).toHaveAttribute('data-version', '1');

  // The host goes away; the other browser's v2 is what it kept.
  api.close();
  const port = host.port;
  await host.stop();
  const storePath = join(dataDir, 'profiles.json');
  const store = JSON.parse(readFileSync(storePath, 'utf8')) as { profiles: unknown[] };
  store.profiles.push({ origin: 'user', profile: profile(2, 'Theirs: for the night shift.', '2026-12-01T10:00:00.000Z') });
  writeFileSync(storePath, JSON.stringify(store, null, 2));

  // This browser edits v1 meanwhile: its edit is v2 here.
  await item.getByTestId('profile-edit').click();
  const editor = page.getByTestId('profile-editor');
  await editor.getByLabel('Description').fill('Mine: for the day shift.');
  await editor.getByTestId('profile-save').click();
  await expect(item).toHaveAttribute('data-version', '2');

  // The host is back (same port, so the same origin and the same IndexedDB); its new launch link is opened.
  host = await startHostOnPort(dataDir, port);
  const again = await connectHost(host);
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible();
  await page.evaluate(() => (window.location.hash = '#/settings'));

  const conflict = page.locator(`[data-testid=profile-conflict][data-profile-id="${ID}"]`);
  await expect(conflict).toHaveAttribute('data-version', '2');
  await expect(conflict.getByTestId('profile-conflict-fields')).toHaveText('description');
  await expect(conflict.getByTestId('profile-conflict-mine')).toContainText('Mine: for the day shift.');
  await expect(conflict.getByTestId('profile-conflict-theirs')).toContainText('Theirs: for the night shift.');
  await shot(page, '64-profile-conflict');

  await conflict.getByTestId('profile-keep-mine').click();
  await expect(page.getByTestId('profile-conflict-done')).toContainText('saved as Shared student · v3');
  await expect(page.getByTestId('profile-conflicts')).toHaveCount(0);
  await expect(item).toHaveAttribute('data-version', '3');

  // The host keeps both: v2 is theirs, v3 mine (the sync carried it).
  await expect
    .poll(async () => {
      const listed = (await again.request('profiles.list', {})) as { profiles: Array<{ profile: { id: string; version: number; description?: string } }> };
      return listed.profiles.filter((p) => p.profile.id === ID).map((p) => `${p.profile.version}:${p.profile.description ?? ''}`).sort();
    })
    .toEqual(['1:First.', '2:Theirs: for the night shift.', '3:Mine: for the day shift.']);
  again.close();
});
