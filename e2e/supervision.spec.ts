import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { PreferenceLine, SftLine } from '../src-shared/contracts/learning-export';
import { ProfileBundle } from '../src-shared/contracts/profiles';
import { ensureBuilt } from '../test-support/ensure-built';
import { startFakeOllama } from '../test-support/fake-ollama';
import { startFakeOpenAI } from '../test-support/fake-openai';
import { closedPort } from '../test-support/closed-port';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { ARTIFACTS, pageStorage, runIdFromUrl, shot, storedEvents, terminalCode } from './helpers';
import { startHostOnPort } from './host-on-port';

// Everything is real here (host process, MCP filesystem server, IndexedDB, downloads) except the
// models: the demo workflows run on the replay provider, the test double at the model boundary.
test.describe.configure({ mode: 'serial' });

let host: HostProcess;
let dataDir: string;
let page: Page;
const sandbox = (workflow: string) => join(dataDir, 'demo', workflow, 'notes-sandbox');
const card = (name: string) => page.getByTestId('workflow-card').filter({ hasText: name });
/** Opens the app through its access link (so any test can run alone), then goes to `hash`. */
async function openApp(hash: string): Promise<void> {
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible();
  await page.evaluate((h) => (window.location.hash = h), hash);
}

test.beforeAll(async ({ browser }) => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-supervision-'));
  host = await startHostProcess(dataDir);
  // One page for the whole story: its IndexedDB holds the profiles, runs and learning examples.
  page = await browser.newPage({ acceptDownloads: true });
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('the panel configures the demo node: phase 2 saved as a new deployment version, Validate points at the field, Dry-run shows the rounds and leaves the disk alone', async () => {
  const notesBefore = readFileSync(join(process.cwd(), 'resources/examples/notes-sandbox/meeting-notes.md'), 'utf8');
  await page.goto(host.url);
  await expect(card('Notes assistant')).toBeVisible();
  await card('Notes assistant').getByTestId('configure-button').click();
  await expect(page).toHaveURL(/#\/workflows\/notes-assistant$/);
  const panel = page.getByTestId('supervision-panel');
  await expect(panel.getByTestId('config-phase')).toHaveText('Phase 3 · Risk-gated');
  await expect(panel.getByTestId('profile-select-teacher')).toContainText('Replay teacher · v1');
  await expect(panel.getByTestId('model-health-teacher')).toContainText('always available');
  await shot(page, '10-panel', false);

  // Phase 2 through the panel: a draft of the deployment profile until saved as its next version.
  await panel.getByTestId('phase-select').selectOption('2');
  await expect(panel.getByTestId('config-phase')).toHaveText('Phase 2 · Student fully gated');
  await expect(panel.getByTestId('version-bump').filter({ hasText: 'Deployment' })).toContainText('Notes assistant · deployment · v1 → v2');

  // A safe message that can never show (on_block is "fail"): Validate will warn about it.
  await panel.getByTestId('group-handover').getByRole('button', { name: /Handover/ }).click();
  await panel.getByTestId('safe-message').fill('Stopped before writing anything.');
  await expect(panel.getByTestId('version-bump')).toHaveCount(2);
  // Risk-gated (default) is built in, so read-only: its edit is saved as a copy the workflow then uses.
  await expect(panel.getByTestId('version-bump').filter({ hasText: 'Supervision' })).toContainText('Risk-gated (default) · v1 → a copy (built-in profiles are read-only)');
  await expect(panel.getByTestId('profile-pending-supervision')).toHaveText('edited · saves as a copy');
  await expect(panel.getByTestId('dry-run-button')).toBeDisabled();
  await shot(page, '11-panel-unsaved', false);
  await panel.getByTestId('save-profiles').click();
  await expect(panel.getByTestId('save-bar')).toHaveCount(0);
  await expect(panel.getByTestId('profile-select-deployment')).toContainText('Notes assistant · deployment · v2');
  await expect(panel.getByTestId('profile-select-supervision')).toContainText('Risk-gated (default) (copy) · v1');

  // Versions are immutable: v1 is still there, unchanged, beside v2.
  const versions = await page.evaluate(
    () =>
      new Promise<{ id: string; version: number; phase?: number }[]>((resolve, reject) => {
        const open = indexedDB.open('steward');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const all = open.result.transaction('profiles', 'readonly').objectStore('profiles').getAll();
          all.onsuccess = () => resolve((all.result as { id: string; version: number; kind: string; deployment?: { phase: number } }[]).filter((p) => p.kind === 'deployment' && p.id.startsWith('notes-assistant')).map((p) => ({ id: p.id, version: p.version, phase: p.deployment?.phase })));
          all.onerror = () => reject(all.error);
        };
      }),
  );
  expect(versions.map((v) => [v.version, v.phase]).sort()).toEqual([
    [1, 3],
    [2, 2],
  ]);

  // Validate: the warning names its field; its link opens the group and focuses the control.
  await panel.getByTestId('validate-button').click();
  const report = panel.getByTestId('validation-report');
  await expect(report).toContainText('Valid configuration · 1 warning');
  const issue = report.getByTestId('validation-issue');
  await expect(issue).toHaveAttribute('data-severity', 'warning');
  await expect(issue).toHaveAttribute('data-field', 'supervision.safe_message');
  await expect(issue).toContainText('on_block is fail');
  await panel.getByTestId('group-handover').getByRole('button', { name: /Handover/ }).click();
  await expect(panel.getByTestId('group-handover')).toHaveAttribute('data-open', 'false');
  await issue.getByTestId('validation-issue-link').click();
  await expect(panel.getByTestId('group-handover')).toHaveAttribute('data-open', 'true');
  await expect(panel.getByTestId('safe-message')).toBeFocused();
  await report.scrollIntoViewIfNeeded();
  await shot(page, '12-validate', false);

  // Dry-run: real (replay) models, no tool executed; the rounds show what would have happened.
  await panel.getByTestId('dry-run-button').click();
  const dry = panel.getByTestId('dry-run-result');
  await expect(dry.getByTestId('dry-run-banner')).toContainText('no tool was executed');
  await expect(dry.getByTestId('run-final')).toBeVisible({ timeout: 30_000 });
  const rounds = dry.getByTestId('round-card');
  expect(await rounds.count()).toBeGreaterThan(0);
  // Phase 2: every student decision went to the teacher.
  await expect(rounds.first().getByTestId('review')).toContainText('every decision reviewed');
  await dry.scrollIntoViewIfNeeded();
  await shot(page, '13-dry-run');

  const runId = (await dry.getAttribute('data-run-id')) ?? '';
  const events = await storedEvents(page, runId);
  const started = events.find((e) => e.type === 'run.started');
  expect(started?.type === 'run.started' && started.dry_run).toBe(true);
  expect(started?.type === 'run.started' && started.supervision.phase).toBe(2);
  expect(started?.type === 'run.started' && started.profiles.deployment).toMatchObject({ name: 'Notes assistant · deployment', version: 2 });
  expect(events.some((e) => e.type === 'tool.executed' && e.execution.ok && !e.execution.is_error && /Successfully wrote/.test(e.execution.content))).toBe(false);

  // The disk: nothing was written, the notes are untouched.
  expect(readdirSync(sandbox('notes-assistant')).sort()).toEqual(['ideas.md', 'meeting-notes.md']);
  expect(readFileSync(join(sandbox('notes-assistant'), 'meeting-notes.md'), 'utf8')).toBe(notesBefore);
});

test('the teacher escalates to a person: the run waits in the app, the person approves, the run completes', async () => {
  await openApp('#/workflows');
  await card('Ask a human').getByTestId('run-button').click();
  await expect(page).toHaveURL(/#\/runs\//);
  const runId = runIdFromUrl(page.url());

  const waiting = page.getByTestId('intervention-card');
  await expect(waiting).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'waiting');
  await expect(waiting).toHaveAttribute('data-kind', 'escalation');
  await expect(waiting.getByTestId('intervention-reason')).toContainText('a person should approve');
  await expect(waiting.getByTestId('intervention-decision')).toContainText('shared.md');
  await expect(waiting.getByTestId('intervention-approve')).toHaveText('Approve and run it');
  expect(existsSync(join(sandbox('ask-a-human'), 'shared.md'))).toBe(false);
  await shot(page, '14-waiting-for-you');

  // Still waiting after a reload: the question comes back from the stored events (and the host).
  await page.reload();
  await expect(page.getByTestId('intervention-card')).toBeVisible();

  await page.getByTestId('intervention-approve').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect(page.getByTestId('intervention-card')).toHaveCount(0);
  await expect(page.getByTestId('round-intervention')).toHaveAttribute('data-answered', 'approve');
  await expect(page.getByTestId('run-output')).toContainText('shared.md');
  await shot(page, '15-approved-completed');

  expect(readFileSync(join(sandbox('ask-a-human'), 'shared.md'), 'utf8')).toContain('Action items');
  const events = await storedEvents(page, runId);
  expect(events.filter((e) => e.type === 'intervention.requested')).toHaveLength(1);
  expect(events.find((e) => e.type === 'intervention.answered')).toMatchObject({ answer: { action: 'approve' } });
});

test('a run waiting for a person survives a host restart: the question comes back, a rejection with a note lets the agent try again', async () => {
  await openApp('#/workflows');
  await card('Ask a human').getByTestId('run-button').click();
  await expect(page.getByTestId('intervention-card')).toBeVisible({ timeout: 30_000 });
  const runId = runIdFromUrl(page.url());

  // Restart the host on the same origin (same IndexedDB); it prints a new access token.
  await host.stop();
  host = await startHostOnPort(dataDir, host.port);
  await page.goto(host.url);
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), runId);
  const waiting = page.getByTestId('intervention-card');
  await expect(waiting).toBeVisible();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'waiting');

  await waiting.getByTestId('intervention-note').fill('Do not post to shared.md; finish without writing.');
  await waiting.getByTestId('intervention-reject').click();
  await expect(page.getByTestId('run-status')).not.toHaveAttribute('data-status', 'waiting', { timeout: 30_000 });
  await expect(page.getByTestId('run-final')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('round-intervention').first()).toHaveAttribute('data-answered', 'reject');
  // The student then says it posted the items: that follows the rejected write, so the teacher
  // checked the claim against what ran and blocked it. Never a green Completed (issue 10).
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'blocked');
  await expect(page.getByTestId('run-final')).toContainText('Nothing was posted');
  const answer = page.getByTestId('round-card').last();
  await expect(answer.getByTestId('review')).toContainText('final answer after a blocked or rejected decision');
  await expect(answer).toHaveAttribute('data-outcome', 'blocked');
  await shot(page, '15b-rejected-after-restart');
  const events = await storedEvents(page, runId);
  expect(events.find((e) => e.type === 'intervention.answered')).toMatchObject({ answer: { action: 'reject', note: 'Do not post to shared.md; finish without writing.' } });
});

test('learning data exports from the Learning page as SFT and preference JSONL, every line valid', async () => {
  await openApp('#/learning');
  const rows = page.getByTestId('learning-row');
  await expect(rows.first()).toBeVisible();
  expect(await rows.count()).toBeGreaterThan(0);
  await shot(page, '16-learning');

  // An example opens in place: its prompt, the student's candidate, the verdict.
  const review = page.locator('[data-testid=learning-row][data-kind=review]').first();
  await review.getByTestId('learning-row-toggle').focus();
  await page.keyboard.press('Enter');
  const detail = page.getByTestId('example-detail');
  await expect(detail).toHaveCount(1);
  await expect(detail.getByTestId('example-prompt')).toContainText('Asked (user)');
  await expect(detail.getByTestId('example-candidate')).toBeVisible();
  await expect(detail.getByTestId('example-verdict')).toBeVisible();
  await shot(page, '16b-learning-example-open');
  // Promotion: of Ask a human's two escalations, the one a person approved is no protected-effect error; the dry run of Notes assistant never counts.
  const askAHuman = page.locator('[data-testid=promotion-card][data-workflow-id=ask-a-human]');
  // Three reviews: the two escalations, and the teacher's check of the claim after the rejected one.
  await expect(askAHuman.getByTestId('metric-examples')).toHaveText('3');
  await expect(askAHuman.getByTestId('metric-errors')).toHaveText('1');
  await expect(page.locator('[data-testid=promotion-card][data-workflow-id=notes-assistant]').getByTestId('metric-examples')).toHaveText('0');

  // The dry run's teacher replacement taught nothing: a real run of Notes assistant gives the preference pair.
  await openApp('#/workflows');
  await card('Notes assistant').getByTestId('run-button').click();
  await expect(page).toHaveURL(/#\/runs\//);
  await expect(page.getByTestId('run-final')).toBeVisible({ timeout: 30_000 });
  const realRun = await storedEvents(page, runIdFromUrl(page.url()));
  expect(realRun.some((e) => e.type === 'learning.example' && e.verdict?.verdict === 'replace')).toBe(true);
  await page.evaluate(() => (window.location.hash = '#/learning'));
  await expect(page.getByTestId('learning-row').first()).toBeVisible();

  for (const [format, schema] of [
    ['sft', SftLine],
    ['preference', PreferenceLine],
  ] as const) {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`export-${format}`).click()]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^steward-${format}-.*\\.jsonl$`));
    const text = readFileSync((await download.path()) ?? '', 'utf8');
    const lines = text.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => schema.parse(JSON.parse(line))).not.toThrow();
    await expect(page.getByTestId('export-summary')).toHaveAttribute('data-format', format);
    await expect(page.getByTestId('export-summary')).toContainText(`Wrote ${lines.length}`);
  }
  await shot(page, '17-learning-exported');
});

test('the MCP registry: inspect lists every tool as shipped, annotations are only suggestions, and metadata set there reaches the next run', async () => {
  await openApp('#/registry');
  const server = page.getByTestId('registry-server').filter({ hasText: '@modelcontextprotocol/server-filesystem' });
  await server.getByTestId('inspect-server-filesystem').click();
  const write = server.locator('[data-testid=registry-tool][data-tool=write_file]');
  await expect(write).toHaveAttribute('data-source', 'shipped');
  // Every tool of the server, not only the ones one workflow offers.
  expect(await server.getByTestId('registry-tool').count()).toBeGreaterThan(4);
  await expect(write.getByTestId('registry-suggestion')).toContainText('untrusted');
  await expect(server.locator('[data-testid=registry-tool][data-tool=list_directory]')).toHaveAttribute('data-source', 'shipped');

  // Mark write_file's content sensitive: masked in every event from now on.
  await write.getByTestId('registry-edit').click();
  await write.getByRole('checkbox', { name: 'content' }).check();
  await write.getByTestId('registry-save').click();
  await expect(write).toHaveAttribute('data-source', 'yours');
  await write.scrollIntoViewIfNeeded();
  await shot(page, '18-registry', false);

  await openApp('#/workflows/notes-assistant');
  const panel = page.getByTestId('supervision-panel');
  await panel.getByTestId('group-tools').getByRole('button', { name: /Tool safety/ }).click();
  await expect(panel.getByTestId('tool-safety-server').locator('tr', { hasText: 'write_file' })).toContainText('yours');
  await panel.getByTestId('dry-run-button').click();
  const dry = panel.getByTestId('dry-run-result');
  await expect(dry.getByTestId('run-final')).toBeVisible({ timeout: 30_000 });
  const events = await storedEvents(page, (await dry.getAttribute('data-run-id')) ?? '');
  const snapshot = events.find((e) => e.type === 'tools.snapshot');
  expect(snapshot?.type === 'tools.snapshot' && snapshot.tools.find((t) => t.name === 'write_file')).toMatchObject({ effect: 'irreversible_write', effect_source: 'user' });
  const selected = events.find((e) => e.type === 'decision.selected' && e.decision.decision_type === 'tool_call' && e.decision.tool_name === 'write_file');
  expect(selected?.type === 'decision.selected' && selected.decision.decision_type === 'tool_call' && selected.decision.arguments.content).toBe('••••••');
});

test('allowing a host waits for the code printed on the host terminal; a wrong code changes nothing; the audit log in Settings lists every change', async () => {
  await openApp('#/settings');
  const privacy = page.getByTestId('privacy-section');
  await expect(privacy.getByTestId('privacy-local-only')).toBeVisible();
  const printed = host.stderr?.().length ?? 0;
  await privacy.getByTestId('privacy-host').fill('api.example.com');
  await privacy.getByRole('button', { name: 'Allow' }).click();
  const confirm = privacy.getByTestId('confirm-code-panel');
  await expect(confirm).toContainText('api.example.com');
  const code = await terminalCode(() => host.stderr?.() ?? '', printed);
  await confirm.getByTestId('confirm-code').fill(code === '000-000' ? '000-001' : '000-000');
  await confirm.getByTestId('confirm-approve').click();
  await expect(confirm.getByRole('alert')).toContainText('2 attempts left');
  await expect(privacy.getByTestId('privacy-local-only')).toBeVisible();
  await privacy.screenshot({ path: `${ARTIFACTS}/19a-confirm-code.png` });
  await confirm.getByTestId('confirm-code').fill(code);
  await confirm.getByTestId('confirm-approve').click();
  await expect(privacy.getByTestId('allowed-hosts')).toContainText('api.example.com');
  // Narrowing needs no code.
  await privacy.getByRole('button', { name: 'Remove api.example.com' }).click();
  await expect(privacy.getByTestId('privacy-local-only')).toBeVisible();

  const audit = page.getByTestId('audit-section');
  await audit.getByRole('button', { name: 'Refresh' }).click();
  const records = audit.getByTestId('audit-record');
  await expect(records.first()).toHaveAttribute('data-action', 'privacy.set');
  await expect(audit.locator('[data-action="privacy.set"]', { hasText: 'the code from the terminal' })).toHaveCount(1);
  // The action reads as words; its code is only the row's tooltip.
  await expect(records.first().getByRole('cell').nth(1)).toHaveText('Privacy policy changed');
  // The registry test before this one saved write_file's metadata: also recorded.
  await expect(audit.locator('[data-action="effects.set"]', { hasText: 'filesystem/write_file' })).toHaveCount(1);
  await audit.scrollIntoViewIfNeeded();
  await shot(page, '19b-audit-log', false);
});

test('profiles export to a file and a bad file is refused with its reasons', async () => {
  await openApp('#/settings');
  const section = page.getByTestId('profiles-section');
  // The built-in stayed as shipped; the panel's edit is a copy of the person's own.
  await expect(section.locator('[data-testid=profile-item][data-profile-id=risk-gated]')).toHaveAttribute('data-version', '1');
  const [download] = await Promise.all([page.waitForEvent('download'), section.getByTestId('profiles-export').click()]);
  const bundle = ProfileBundle.parse(JSON.parse(readFileSync((await download.path()) ?? '', 'utf8')));
  expect(bundle.profiles.filter((p) => p.id === 'risk-gated')).toEqual([]);
  expect(bundle.profiles.filter((p) => p.name === 'Risk-gated (default) (copy)').map((p) => p.version)).toEqual([1]);

  await section.getByTestId('profiles-import-file').setInputFiles({
    name: 'broken-profiles.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify({ ...bundle, profiles: [{ ...bundle.profiles[0], version: 0 }] })),
  });
  await expect(section.getByTestId('profiles-notice')).toContainText('broken-profiles.json was not imported');
  await expect(section.getByTestId('profiles-notice')).toContainText('profiles[0].version');
  // The file we exported imports cleanly: everything is already here.
  await section.getByTestId('profiles-import-file').setInputFiles({ name: 'mine.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bundle)) });
  await expect(section.getByTestId('profiles-notice')).toContainText(`0 profile versions imported, ${bundle.profiles.length} already here`);
  await shot(page, '19-settings', false);
});

// Needs a Secret Service on a session bus (CI runs the suite under dbus-run-session with gnome-keyring).
test('a credential is write-only: stored in the keychain, listed by name, never shown or kept by the page', async () => {
  test.skip(!process.env.DBUS_SESSION_BUS_ADDRESS, 'no D-Bus session bus: the OS keychain is not reachable here');
  const name = `e2e-${Date.now().toString(36)}`;
  const secret = `sk-e2e-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  await openApp('#/settings');
  const section = page.getByTestId('credentials-section');
  await section.getByTestId('credential-name').fill(name);
  await section.getByTestId('credential-value').fill(secret);
  const printed = host.stderr?.().length ?? 0;
  await section.getByRole('button', { name: 'Store in keychain' }).click();
  // The host asks the person at its terminal: nothing is stored until its code is typed here.
  const confirm = section.getByTestId('confirm-code-panel');
  await expect(confirm).toContainText(`store the credential "${name}"`);
  await expect(section.locator(`[data-testid=credential][data-name="${name}"]`)).toHaveCount(0);
  await confirm.getByTestId('confirm-code').fill(await terminalCode(() => host.stderr?.() ?? '', printed));
  await confirm.getByTestId('confirm-approve').click();
  await expect(section.getByTestId('credential-message')).toContainText(`keychain:${name}`);
  await expect(section.getByTestId('credential-value')).toHaveValue('');
  const item = section.locator(`[data-testid=credential][data-name="${name}"]`);
  await expect(item).toBeVisible();
  expect(await page.content()).not.toContain(secret);
  const stored = await pageStorage(page);
  expect(stored).not.toContain(secret);

  await item.getByTestId('credential-delete').click();
  await item.getByTestId('credential-delete-confirm').click();
  await expect(item).toHaveCount(0);
});

test('model roles show the model id, provider health and capabilities, with a warning the server itself reports', async ({ browser }) => {
  const ollama = await startFakeOllama({
    version: '0.12.6',
    models: [
      { name: 'qwen3:4b', family: 'qwen3', parameter_size: '4B', capabilities: ['completion', 'tools', 'thinking'] },
      { name: 'tiny-embed', family: 'bert', parameter_size: '22M', capabilities: ['embedding'] },
    ],
  });
  const dir = mkdtempSync(join(tmpdir(), 'steward-e2e-supervision-ollama-'));
  const ollamaHost = await startHostProcess(dir, { OLLAMA_HOST: ollama.url });
  const other = await browser.newPage();
  try {
    await other.goto(ollamaHost.url);
    await expect(other.getByTestId('ollama-status')).toHaveAttribute('data-reachable', 'true');
    const notes = other.getByTestId('workflow-card').filter({ hasText: 'Notes assistant' });
    await notes.getByTestId('model-select-teacher').selectOption('ollama:qwen3:4b');
    await notes.getByTestId('model-select-student').selectOption('ollama:tiny-embed');
    await notes.getByTestId('configure-button').click();
    const panel = other.getByTestId('supervision-panel');
    await expect(panel.getByTestId('profile-select-teacher')).toContainText('ollama:qwen3:4b teacher · v1');
    const teacher = panel.getByTestId('model-health-teacher');
    await expect(teacher).toHaveAttribute('data-health', 'ok');
    await expect(teacher).toContainText('ollama:qwen3:4b');
    await expect(teacher).toContainText('4B');
    await expect(teacher).toContainText('thinking');
    await expect(panel.getByTestId('model-health-student')).toContainText('is not a chat model');
    await panel.getByTestId('validate-button').click();
    await expect(panel.locator('[data-testid=validation-issue][data-field="models.student"]')).toContainText('not a chat model');
    await panel.getByTestId('model-health-student').scrollIntoViewIfNeeded();
    await shot(other, '20-model-roles-ollama', false);
  } finally {
    await other.close();
    await ollamaHost.stop();
    await ollama.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('profiles as a new user meets them: built-ins offer Duplicate, not Edit; a taken name is refused with the reason; demo deployments say demo; the Deployment picker lists the workflow’s own; an OpenAI-compatible server’s models are listed (fake OpenAI server) and an unreachable one says what to do', async ({ browser }) => {
  // The model server is the fake OpenAI-compatible server (TEST DOUBLE at the model boundary).
  const openai = await startFakeOpenAI({ models: ['local-7b-instruct', 'local-1b'], chat: () => ({ message: { content: '{"ok": true}' } }) });
  const dir = mkdtempSync(join(tmpdir(), 'steward-e2e-profiles-'));
  const own = await startHostProcess(dir);
  const p = await browser.newPage();
  try {
    await p.goto(own.url);
    await expect(p.getByTestId('workflow-card').first()).toBeVisible();
    await p.evaluate(() => (window.location.hash = '#/settings'));
    const section = p.getByTestId('profiles-section');
    const builtin = section.locator('[data-testid=profile-item][data-profile-id=risk-gated]');
    await expect(builtin).toContainText('built-in');
    await expect(builtin).toContainText('read-only');
    await expect(builtin.getByTestId('profile-edit')).toHaveCount(0);
    await expect(builtin.getByTestId('profile-duplicate')).toBeVisible();
    const deployments = section.locator('[data-testid=profile-kind][data-kind=deployment] [data-testid=profile-item]');
    await expect(deployments.filter({ hasText: 'Notes assistant · deployment' })).toHaveAttribute('data-origin', 'demo');
    await expect(deployments.filter({ hasText: 'Phase 3 · risk-gated' })).toHaveAttribute('data-origin', 'built-in');
    await section.screenshot({ path: `${ARTIFACTS}/20b-profiles-built-in-read-only.png` });

    // Duplicate, then try a name another supervision profile has (case aside): refused, with the reason.
    await builtin.getByTestId('profile-duplicate').click();
    const editor = p.getByTestId('profile-editor');
    await expect(editor.getByTestId('profile-name')).toHaveValue('Risk-gated (default) (copy)');
    await editor.getByTestId('profile-name').fill('fully gated');
    await expect(editor.getByTestId('profile-name-error')).toHaveText('Name: another supervision profile is already called “Fully gated” — names are unique per kind, choose another');
    await expect(editor.getByTestId('profile-save')).toBeDisabled();
    await editor.scrollIntoViewIfNeeded();
    await shot(p, '21-profile-name-taken', false);
    await editor.getByTestId('profile-name').fill('Risk-gated, stricter');
    await editor.getByTestId('profile-save').click();
    const mine = section.locator('[data-testid=profile-item]').filter({ hasText: 'Risk-gated, stricter' });
    await expect(mine).toHaveAttribute('data-origin', 'yours');
    await expect(mine.getByTestId('profile-edit')).toBeVisible();

    // An OpenAI-compatible teacher: the Model field lists what the server offers.
    await section.getByTestId('profile-new-teacher').click();
    await editor.getByTestId('profile-name').fill('Local server teacher');
    await editor.getByTestId('model-provider-teacher').selectOption('openai_compatible');
    await editor.getByLabel('Base URL').fill(openai.baseUrl);
    await expect(editor.getByTestId('openai-models-status-teacher')).toHaveAttribute('data-health', 'ok');
    await expect(editor.getByTestId('openai-models-status-teacher')).toContainText('lists 2 models');
    const modelField = editor.getByTestId('openai-model-teacher');
    await expect(modelField.locator('option')).toHaveText(['Choose a model…', 'local-7b-instruct', 'local-1b']);
    await modelField.selectOption('local-7b-instruct');
    await editor.scrollIntoViewIfNeeded();
    await shot(p, '22-openai-models-listed', false);
    await editor.getByTestId('profile-save').click();
    await expect(section.locator('[data-testid=profile-item]').filter({ hasText: 'Local server teacher' })).toBeVisible();
    // The sidebar's Model providers lists the server the profile uses: reachable, with its models, never its key.
    const listed = p.getByTestId('provider-panel').locator(`[data-testid=openai-status][data-base-url="${openai.baseUrl}"]`);
    await expect(listed).toHaveAttribute('data-reachable', 'true');
    await expect(listed).toContainText('reachable · 2 models');
    await p.getByTestId('provider-panel').screenshot({ path: `${ARTIFACTS}/22b-sidebar-openai-provider.png` });

    // Nobody listening: the field says so, and what to do.
    const port = await closedPort();
    await section.getByTestId('profile-new-student').click();
    await editor.getByTestId('model-provider-student').selectOption('openai_compatible');
    await editor.getByLabel('Base URL').fill(`http://127.0.0.1:${port}/v1`);
    const down = editor.getByTestId('openai-models-status-student');
    await expect(down).toHaveAttribute('data-health', 'off');
    await expect(down).toContainText(`Nothing answers at http://127.0.0.1:${port}/v1 (ECONNREFUSED) — start the server, or check the base URL and its port`);
    await editor.scrollIntoViewIfNeeded();
    await shot(p, '23-openai-unreachable', false);
    await editor.getByRole('button', { name: 'Cancel' }).click();

    // The card's picker lists the server's models, as Ollama's.
    await p.evaluate(() => (window.location.hash = '#/workflows'));
    const notes = p.getByTestId('workflow-card').filter({ hasText: 'Notes assistant' });
    const picker = notes.getByTestId('model-select-teacher');
    const group = picker.locator(`optgroup[label="127.0.0.1:${new URL(openai.baseUrl).port} (OpenAI-compatible)"]`);
    // local-7b-instruct is offered once, as the person's profile "Local server teacher" (one entry per model: issue 28).
    await expect(group.locator('option')).toHaveText(['local-1b']);
    await expect(picker.locator('option', { hasText: 'Local server teacher' })).toHaveCount(1);
    await picker.selectOption({ label: 'local-1b' });
    await notes.getByTestId('configure-button').click();

    // The panel: the model listed at a reachable server, a probe call that answers; only Notes' own deployments.
    const panel = p.getByTestId('supervision-panel');
    const health = panel.getByTestId('model-health-teacher');
    await expect(health).toHaveAttribute('data-health', 'ok');
    await expect(health).toContainText('reachable · model listed');
    await health.getByRole('button', { name: 'Test model' }).click();
    await expect(health.getByTestId('model-probe')).toHaveAttribute('data-probe', 'ok');
    await expect(health.getByTestId('model-probe')).toContainText('local-1b answered in');
    const offered = await panel.getByTestId('profile-select-deployment').locator('option').allTextContents();
    expect(offered.some((o) => o.startsWith('Notes assistant · deployment'))).toBe(true);
    expect(offered.some((o) => o.includes('Guarded writes') || o.includes('Ask a human'))).toBe(false);
    await health.scrollIntoViewIfNeeded();
    await shot(p, '24-panel-openai-health', false);
  } finally {
    await p.close();
    await own.stop();
    await openai.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
