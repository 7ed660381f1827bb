import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startFakeOllama, type FakeOllama } from '../test-support/fake-ollama';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { shot } from './helpers';

/**
 * Issue 28, models and profiles as a person meets them: each model once in a picker (its profile,
 * never again raw beside it; a student profile never offered as a teacher); a workflow whose model's
 * provider is down says why in the Run form before anything starts; a profile the person made can be
 * deleted, and one a workflow or a run uses is refused, naming them. Real host, page and disk; the
 * model server is a local HTTP server speaking the Ollama API (the model boundary's test double).
 */

let ollama: FakeOllama | undefined;
let host: HostProcess;
let dataDir: string;
let page: Page;

test.beforeAll(async ({ browser }) => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-models28-'));
  ollama = await startFakeOllama({ models: [{ name: 'qwen3:4b', family: 'qwen3', parameter_size: '4B', capabilities: ['completion', 'tools'] }] });
  host = await startHostProcess(dataDir, { OLLAMA_HOST: ollama.url });
  page = await browser.newPage();
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  await ollama?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function openApp(hash: string): Promise<void> {
  await page.goto(host.url);
  await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 20_000 });
  await page.evaluate((h) => (window.location.hash = h), hash);
}

const card = (name: string) => page.getByTestId('workflow-card').filter({ hasText: name });
const optionTexts = (select: Locator) => select.locator('option').allTextContents();
const profileItem = (name: string) => page.getByTestId('profile-item').filter({ hasText: name });

async function newProfile(kind: 'student' | 'teacher', name: string, provider: 'ollama' | 'script'): Promise<void> {
  await page.getByTestId(`profile-new-${kind}`).click();
  const editor = page.getByTestId('profile-editor');
  await editor.getByTestId('profile-name').fill(name);
  await editor.getByTestId(`model-provider-${kind}`).selectOption(provider);
  await editor.getByTestId('profile-save').click();
  await expect(profileItem(name)).toBeVisible();
}

test('a model picker offers each model once: its profile, never the raw model beside it, and never a student profile as teacher', async () => {
  await openApp('#/settings');
  await expect(page.getByTestId('ollama-status')).toHaveAttribute('data-reachable', 'true');
  await newProfile('student', 'Local qwen', 'ollama');

  // The editor's agent node: the student picker has qwen3:4b once, as the person's profile.
  await page.evaluate(() => (window.location.hash = '#/workflows/new'));
  await page.getByTestId('workflow-name').fill('Local writer');
  await page.getByTestId('palette-item-agent').press('Enter');
  const inspector = page.getByTestId('inspector');
  const student = inspector.getByTestId('model-select-student');
  const teacher = inspector.getByTestId('model-select-teacher');
  await expect.poll(() => optionTexts(student)).toContainEqual(expect.stringContaining('Local qwen'));
  expect((await optionTexts(student)).filter((o) => o.includes('qwen3:4b'))).toEqual([expect.stringMatching(/^Local qwen · v1 — ollama:qwen3:4b/)]);
  // The teacher picker never offers a student profile: the model itself is its one entry there.
  expect((await optionTexts(teacher)).filter((o) => o.includes('qwen3:4b') || o.includes('Local qwen'))).toEqual(['qwen3:4b · 4B']);
  await student.selectOption({ label: 'Local qwen · v1 — ollama:qwen3:4b' });
  await teacher.selectOption({ label: 'qwen3:4b · 4B' });
  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('saved-indicator')).toBeVisible();

  // A demo card keeps profiles: picking the raw model as teacher makes its profile, which is then its one entry.
  await page.evaluate(() => (window.location.hash = '#/workflows'));
  const notes = card('Notes assistant');
  await notes.getByTestId('model-select-teacher').selectOption({ label: 'qwen3:4b · 4B' });
  await expect(notes.getByTestId('model-select-teacher').locator('option:checked')).toContainText('ollama:qwen3:4b teacher · v1');
  expect((await optionTexts(notes.getByTestId('model-select-teacher'))).filter((o) => o.includes('qwen3:4b'))).toEqual([expect.stringMatching(/^ollama:qwen3:4b teacher · v1/)]);
  expect(await optionTexts(notes.getByTestId('model-select-student'))).not.toContainEqual(expect.stringContaining('teacher · v1'));
  expect((await optionTexts(notes.getByTestId('model-select-student'))).filter((o) => o.includes('qwen3:4b'))).toEqual([expect.stringMatching(/^Local qwen · v1/)]);
  await notes.scrollIntoViewIfNeeded();
  await shot(page, '85-model-pickers-one-entry', false);
});

test('with the model’s provider down, Run says why before anything starts', async () => {
  await ollama?.close();
  ollama = undefined;
  await openApp('#/workflows/local-writer/edit');
  await expect(page.getByTestId('saved-indicator')).toBeVisible();
  await expect(page.getByTestId('node-agent')).toBeVisible();
  await page.getByTestId('run-workflow').click();
  const form = page.getByTestId('run-form');
  const why = form.getByTestId('run-provider-problem');
  await expect(why).toContainText('Not started: Ollama is not answering at http://127.0.0.1:');
  await expect(why).toContainText('and this run needs it: qwen3:4b for agent “agent” (its student and teacher). Start Ollama (ollama serve) and try again');
  const start = form.getByTestId('run-start');
  await expect(start).toHaveAttribute('aria-disabled', 'true');
  await expect(start).toHaveAccessibleDescription(/Ollama is not answering/);
  // Enter in the form starts nothing either.
  await form.getByTestId('run-input-text').fill('a note');
  await form.getByTestId('run-input-text').press('Enter');
  await form.getByTestId('run-check-again').click();
  await expect(why).toBeVisible();
  await shot(page, '86-run-provider-down', false);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('run-banner')).toHaveCount(0);
  await expect(page.getByTestId('run-workflow')).toBeFocused();
  // A demo card's Run too: the Notes assistant's teacher is on Ollama.
  await page.evaluate(() => (window.location.hash = '#/workflows'));
  await card('Notes assistant').getByTestId('run-button').click();
  await expect(card('Notes assistant').getByRole('alert')).toContainText('Not started: Ollama is not answering at http://127.0.0.1:');
  await expect(card('Notes assistant').getByRole('alert')).toContainText('for “Notes assistant” (its teacher). Start Ollama (ollama serve) and try again, or choose another model in its Student or Teacher picker.');
  await expect(page).toHaveURL(/#\/workflows$/);
  // Nothing ran.
  await page.evaluate(() => (window.location.hash = '#/runs'));
  await expect(page.getByText('No runs yet')).toBeVisible();
});

test('a profile the person made can be deleted; one a workflow or a run uses is refused, saying which', async () => {
  await openApp('#/settings');
  // Used by a workflow's choices (the Notes assistant card chose it): refused, naming the workflow.
  const chosen = profileItem('ollama:qwen3:4b teacher');
  await chosen.getByTestId('profile-delete').click();
  await chosen.getByTestId('confirm-profile-delete').click();
  const notice = page.getByTestId('profiles-notice');
  await expect(notice).toContainText('“ollama:qwen3:4b teacher” was not deleted: the workflow “Notes assistant” (as its teacher model) still uses it.');
  await expect(chosen).toBeVisible();
  await notice.scrollIntoViewIfNeeded();
  await shot(page, '87-profile-delete-refused-workflow', false);

  // One nobody uses goes, and stays gone after a reload (the host keeps it deleted).
  await newProfile('student', 'Spare student', 'script');
  const spare = profileItem('Spare student');
  await spare.getByTestId('profile-delete').click();
  await expect(spare.getByTestId('profile-delete-question')).toContainText('Delete “Spare student” and all 1 version of it?');
  await spare.getByTestId('confirm-profile-delete').click();
  await expect(page.getByTestId('profiles-notice')).toHaveText('Deleted “Spare student” (1 version).');
  await expect(profileItem('Spare student')).toHaveCount(0);
  await shot(page, '88-profile-deleted', false);
  await page.reload();
  await expect(profileItem('Local qwen')).toBeVisible();
  await expect(profileItem('Spare student')).toHaveCount(0);
  const stored = JSON.parse(readFileSync(join(dataDir, 'profiles.json'), 'utf8')) as { profiles: { profile: { name: string } }[]; deleted?: { id: string }[] };
  expect(stored.profiles.map((p) => p.profile.name)).not.toContain('Spare student');
  expect(stored.deleted).toHaveLength(1);

  // Recorded by a run: chosen for a run of Guarded writes, then replaced on the card; still refused, the run named.
  await newProfile('student', 'Replay copy', 'script');
  await page.evaluate(() => (window.location.hash = '#/workflows'));
  const guarded = card('Guarded writes');
  await guarded.getByTestId('model-select-student').selectOption({ label: 'Replay copy · v1 — replay' });
  await guarded.getByTestId('run-button').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', /completed|failed|blocked/, { timeout: 30_000 });
  await page.evaluate(() => (window.location.hash = '#/workflows'));
  await guarded.getByTestId('model-select-student').selectOption({ label: 'Local qwen · v1 — ollama:qwen3:4b (not available)' });
  await page.evaluate(() => (window.location.hash = '#/settings'));
  const copy = profileItem('Replay copy');
  await copy.getByTestId('profile-delete').click();
  await copy.getByTestId('confirm-profile-delete').click();
  await expect(page.getByTestId('profiles-notice')).toContainText('“Replay copy” was not deleted: 1 run still uses it. To delete it, delete that run in Runs (a run keeps the profile versions it used).');
  const runLink = page.getByTestId('profile-used-by-runs').getByRole('link');
  await expect(runLink).toHaveCount(1);
  await expect(runLink).toContainText('Guarded writes');
  await page.getByTestId('profiles-notice').scrollIntoViewIfNeeded();
  await shot(page, '89-profile-delete-refused-run', false);
  await runLink.click();
  await expect(page).toHaveURL(/#\/runs\//);
  expect(existsSync(join(dataDir, 'profiles.json'))).toBe(true);
});
