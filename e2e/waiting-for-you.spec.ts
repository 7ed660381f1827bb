import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { askingSpecInput } from '../test-support/asking-spec';
import { runIdFromUrl, shot, storedEvents } from './helpers';

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
  await expect(nav).toHaveAttribute('aria-label', 'Waiting for you: 1');
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

  const empty = view.getByTestId('interventions-empty');
  await expect(empty.getByRole('heading')).toHaveText('Nothing waits for you.', { timeout: 30_000 });
  // The empty state says what would appear here and where to see one.
  await expect(empty).toContainText('the question appears here');
  await expect(empty.getByRole('link', { name: 'Workflows' })).toHaveAttribute('href', '#/workflows');
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

  // Stop the run, on the card: the same question; confirmed, the run ends stopped by the person (issue 28).
  await page.getByTestId('intervention-stop').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('confirm-intervention-stop')).toBeFocused();
  await shot(page, '42-stop-asks-first');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'stopped', { timeout: 30_000 });
  await expect(page.getByTestId('run-status')).toHaveText('Stopped by you');
  await expect(escalated).toHaveAttribute('data-pending', 'false');
});

test('a student\'s question the command line left waiting is answered in the app with a typed reply (kept across a reload), and the run goes on', async () => {
  // The CLI, with no terminal to ask at, leaves the run waiting in the data folder (the host is stopped: one owner at a time).
  await host.stop();
  const specDir = mkdtempSync(join(tmpdir(), 'steward-e2e-asks-'));
  mkdirSync(join(specDir, 'notes-sandbox'));
  writeFileSync(join(specDir, 'notes-sandbox', 'monday.md'), '# Monday\n- ship the editor\n');
  const spec = join(specDir, 'asks.json');
  const script = {
    latency_ms: 0,
    student: [
      { json: { decision_type: 'ask_user', question: 'Which note should I summarise?' } },
      { json: { decision_type: 'complete', output: 'Summarised monday.md.' } },
    ],
    teacher: [],
  };
  writeFileSync(spec, JSON.stringify({ ...askingSpecInput(), script }));
  const cli = spawnSync(process.execPath, [join(process.cwd(), 'bin', 'steward.mjs'), 'run', spec, '--data-dir', dataDir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  expect(cli.status).toBe(3);
  const runId = /the run (\S+) waits for you/.exec(cli.stdout)?.[1] ?? '';
  expect(cli.stdout).toContain(`steward answer ${runId} reply`);

  host = await startHostProcess(dataDir);
  await page.goto(host.url);
  await page.evaluate(() => (window.location.hash = '#/interventions'));
  const row = page.getByTestId('interventions-view').getByTestId('intervention-row').filter({ hasText: 'Which note should I summarise?' });
  await expect(row).toHaveAttribute('data-kind', 'ask_user', { timeout: 30_000 });
  await expect(row).toHaveAttribute('data-run-id', runId);
  await row.getByTestId('intervention-answer-here').click();
  await expect(row.getByTestId('intervention-question')).toHaveText('“Which note should I summarise?”');
  const reply = row.getByLabel('Your reply to the agent');
  await expect(row.getByTestId('intervention-reply')).toBeDisabled();
  await reply.fill('The Monday notes, please.');

  // A reload loses nothing: the question is still there (the run waits persisted), and so is the typed reply.
  await page.reload();
  await row.getByTestId('intervention-answer-here').click();
  await expect(reply).toHaveValue('The Monday notes, please.');
  await shot(page, '43-student-question');

  // By keyboard: Ctrl+Enter in the text box sends the reply.
  await reply.focus();
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('interventions-view').getByTestId('interventions-empty').getByRole('heading')).toHaveText('Nothing waits for you.', { timeout: 30_000 });

  await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), runId);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect(page.getByTestId('round-intervention').first()).toHaveAttribute('data-answered', 'reply');
  await expect(page.getByTestId('round-intervention').first()).toContainText('The Monday notes, please.');
  await shot(page, '44-student-question-answered');
  rmSync(specDir, { recursive: true, force: true });
});

test('approve with edits: a person edits the escalated write\'s arguments in the answer card; an edit that fails validation is refused with the reason, a valid one runs', async () => {
  await page.goto(host.url);
  await card('Ask a human').getByTestId('run-button').click();
  await expect(page).toHaveURL(/#\/runs\//);
  const runId = runIdFromUrl(page.url());
  const answerCard = page.getByTestId('intervention-card');
  await expect(answerCard).toBeVisible({ timeout: 30_000 });
  await answerCard.getByTestId('intervention-edit-arguments').click();
  const editor = answerCard.getByTestId('intervention-arguments');
  const proposed = JSON.parse(await editor.inputValue()) as { path: string; content: string };
  expect(proposed.path).toMatch(/shared\.md$/);

  // Without the content the write cannot pass validation: refused, and the run keeps waiting.
  await editor.fill(JSON.stringify({ path: proposed.path }, null, 2));
  await answerCard.getByTestId('intervention-approve').click();
  await expect(answerCard.getByRole('alert')).toContainText('your edited arguments do not pass validation');
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'waiting');
  await shot(page, '45-approve-with-edits-refused');

  await editor.fill(JSON.stringify({ ...proposed, content: '# Action items (draft, not yet for the team)\n' }, null, 2));
  await expect(answerCard.getByTestId('intervention-approve')).toHaveText('Approve and run it with your arguments');
  await answerCard.getByTestId('intervention-approve').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect(page.getByTestId('round-intervention').first()).toContainText('with your edited arguments');
  const events = await storedEvents(page, runId);
  const executed = events.find((e) => e.type === 'tool.executed' && e.execution.tool === 'write_file');
  expect(executed?.type === 'tool.executed' && executed.execution.arguments).toMatchObject({ content: '# Action items (draft, not yet for the team)\n' });
});
