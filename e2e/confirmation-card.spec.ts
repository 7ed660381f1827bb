import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { askingSpecInput } from '../test-support/asking-spec';
import { FILESYSTEM_PACKAGE } from '../src-shared/policy/shipped-effects';
import { runIdFromUrl, shot } from './helpers';

/**
 * The tool-confirmation card (issue 28), as a person uses it: "Reject; let the agent try again" with
 * a note gives the agent the note in its next round, and it proposes again; "Stop the run" ends the
 * run cancelled; a workflow step's call that no agent proposed offers "Don't run it" instead, and
 * declining it ends the run saying so. Real host, filesystem MCP server and IndexedDB; the models
 * are the replay script (the scripted provider at the model boundary). The runs are started with
 * the CLI and left waiting in the data folder (no terminal), then answered in the app.
 */
test.describe.configure({ mode: 'serial' });

let host: HostProcess | undefined;
let dataDir: string;
let specDir: string;
let page: Page;

const accept = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };

/** `steward run …` with no terminal: the run waits in the data folder; its id. */
function runLeftWaiting(args: string[]): string {
  const cli = spawnSync(process.execPath, [join(process.cwd(), 'bin', 'steward.mjs'), 'run', ...args, '--data-dir', dataDir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  expect(cli.status, cli.stderr).toBe(3);
  return /the run (\S+) waits for you/.exec(cli.stdout)?.[1] ?? '';
}

test.beforeAll(async ({ browser }) => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-confirm-'));
  specDir = mkdtempSync(join(tmpdir(), 'steward-e2e-confirm-spec-'));
  mkdirSync(join(specDir, 'notes-sandbox'));
  writeFileSync(join(specDir, 'notes-sandbox', 'meeting-notes.md'), '# Meeting\n- ship the editor\n');
  page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(specDir, { recursive: true, force: true });
});

test('reject with a note: the agent\'s next round shows it was told and it proposes again; Stop the run then ends it, stopped by you (not failed)', async () => {
  const sandbox = join(specDir, 'notes-sandbox');
  const write = (file: string) => ({ json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(sandbox, file), content: '# Summary\n- ship the editor\n' } } });
  const spec = join(specDir, 'confirms.json');
  writeFileSync(
    spec,
    JSON.stringify({
      ...askingSpecInput({ phase: 3 }),
      name: 'Confirm each write',
      tool_effects: { 'fs/write_file': { effect: 'reversible_write', requires_user_confirmation: true } },
      script: { latency_ms: 0, student: [write('meeting-notes.md'), write('summary.md'), { json: { decision_type: 'complete', output: 'Wrote summary.md.' } }], teacher: [accept, accept, accept] },
    }),
  );
  const runId = runLeftWaiting([spec]);
  host = await startHostProcess(dataDir);
  await page.goto(host.url);
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), runId);

  const card = page.getByTestId('intervention-card');
  await expect(card).toHaveAttribute('data-kind', 'confirmation', { timeout: 30_000 });
  await expect(card.getByTestId('intervention-decision')).toContainText('meeting-notes.md');
  // Every button says what it does; what a rejection does, and its bound, is said beside them.
  await expect(card.getByTestId('intervention-approve')).toHaveText('Approve and run it');
  await expect(card.getByTestId('intervention-reject')).toHaveText('Reject; let the agent try again');
  await expect(card.getByTestId('intervention-stop')).toHaveText('Stop the run');
  await expect(card.getByTestId('intervention-refusal-hint')).toHaveText(
    'Reject; let the agent try again: Nothing runs; the agent is told why (with your note) and proposes again in its next round. It has 11 rounds left; when they are used up, the run stops (Round limit reached).',
  );
  await card.getByLabel('Note for the agent if you reject (optional)').fill('Keep the meeting notes; write summary.md instead.');
  await shot(page, '28-confirmation-card-reject');

  await card.getByTestId('intervention-reject').click();
  // The agent proposed again: a new question about its new call, in the next round.
  await expect(card.getByTestId('intervention-decision')).toContainText('summary.md', { timeout: 30_000 });
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'waiting');
  const rounds = page.getByTestId('round-card');
  await expect(rounds).toHaveCount(2);
  await expect(rounds.first().getByTestId('round-intervention')).toHaveAttribute('data-answered', 'reject');
  await expect(rounds.first().getByTestId('round-intervention')).toContainText('Keep the meeting notes; write summary.md instead.');
  const told = rounds.nth(1).getByTestId('round-told');
  await expect(told).toContainText('The user rejected your call of write_file; it did not run. Their note: "Keep the meeting notes; write summary.md instead.". Propose something else.');
  await expect(card.getByTestId('intervention-refusal-hint')).toContainText('It has 10 rounds left');
  await rounds.nth(1).scrollIntoViewIfNeeded();
  await shot(page, '28-agent-told-and-proposes-again');

  // Stop the run: asked first, then the run ends as the person decided: "Stopped by you", not a failure; nothing was written.
  await card.getByTestId('intervention-stop').click();
  await page.getByTestId('confirm-intervention-stop').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'stopped', { timeout: 30_000 });
  await expect(page.getByTestId('run-status')).toHaveText('Stopped by you');
  await expect(rounds.nth(1).getByTestId('round-intervention')).toHaveAttribute('data-answered', 'stop');
  await expect(page.getByTestId('run-final')).toContainText('you stopped the run');
  expect(existsSync(join(sandbox, 'summary.md'))).toBe(false);
  expect(readFileSync(join(sandbox, 'meeting-notes.md'), 'utf8')).toBe('# Meeting\n- ship the editor\n');
  await shot(page, '28-stopped-by-you');
  // Runs says it the same way, and its status filter finds it.
  const stoppedId = runIdFromUrl(page.url());
  await page.evaluate(() => (window.location.hash = '#/runs'));
  const row = page.locator(`[data-testid=run-row][data-run-id="${stoppedId}"]`);
  await expect(row.locator('[data-status]').first()).toHaveText('Stopped by you');
  await page.getByTestId('runs-filter-status').selectOption('stopped');
  await expect(row).toBeVisible();
  await page.getByTestId('runs-filter-status').selectOption('failed');
  await expect(row).toHaveCount(0);
  await page.getByTestId('runs-filter-status').selectOption('');
});

test('a workflow step\'s call nobody proposed: the card offers Don\'t run it; declined, the run\'s outcome says you declined it, with your note', async () => {
  await host?.stop();
  host = undefined;
  const out = join(specDir, 'saved.md');
  const wf = join(specDir, 'save.workflow.json');
  writeFileSync(
    wf,
    JSON.stringify({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'save-a-note',
      name: 'Save a note',
      servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: [specDir] }],
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }] },
        { id: 'save', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [{ name: 'text', type: 'text' }], arguments: { path: out, content: '{{text}}' } },
        { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'text' }, to: { node: 'save', port: 'text' } },
        { from: { node: 'save', port: 'text' }, to: { node: 'out', port: 'said' } },
      ],
    }),
  );
  const runId = runLeftWaiting([wf, '--input', 'text=hello']);
  host = await startHostProcess(dataDir);
  await page.goto(host.url);
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), runId);

  const card = page.getByTestId('intervention-card');
  await expect(card).toHaveAttribute('data-kind', 'confirmation', { timeout: 30_000 });
  await expect(card.getByRole('group', { name: 'Your answer' }).getByRole('button')).toHaveText(['Approve and run it', 'Don’t run it', 'Stop the run']);
  await expect(card.getByTestId('intervention-refusal-hint')).toHaveText('Don’t run it: Nothing runs; this step ends declined, and the run’s outcome says you declined it (with your note).');
  await card.getByLabel('Why you don’t run it (optional; the run’s outcome says it)').fill('not today');
  await shot(page, '28-workflow-step-dont-run-it');

  await card.getByTestId('intervention-decline').click();
  // The person's decision, not a failure of the system: "Declined by you".
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'declined', { timeout: 30_000 });
  await expect(page.getByTestId('run-status')).toHaveText('Declined by you');
  await expect(page.getByText('you declined fs/write_file: not today').first()).toBeVisible();
  await expect(page.getByText('not_confirmed')).toHaveCount(0);
  // The step did not fail: the person decided it does not run.
  const save = page.locator('[data-testid=node-invocation][data-invocation-id="save"]');
  await save.locator('.node-inv__toggle').click();
  await expect(save.getByTestId('node-invocation-body')).toContainText('Why it did not run');
  await expect(save.getByTestId('node-failure')).toHaveText('you declined fs/write_file: not today');
  // The step's chip and the run's node counts say declined, not failed.
  await expect(save.locator('.chip--status').first()).toHaveText('Declined');
  await expect(page.getByTestId('node-counts')).toContainText('1 declined');
  await expect(page.getByTestId('node-counts')).not.toContainText('failed');
  expect(existsSync(out)).toBe(false);
  await shot(page, '28-workflow-step-declined');
  await page.evaluate(() => (window.location.hash = '#/runs'));
  const row = page.locator(`[data-testid=run-row][data-run-id="${runId}"]`);
  await expect(row.locator('[data-status]').first()).toHaveText('Declined by you');
  // Its nodes: the step a person declined is said as declined, not as a failure.
  await expect(row.getByTestId('run-row-nodes')).toHaveText(/· 1 declined$/);
  await expect(row.getByTestId('run-row-nodes')).not.toContainText('failed');
  await page.getByTestId('runs-filter-status').selectOption('declined');
  await expect(row).toBeVisible();
  await shot(page, '28-runs-declined-by-you');
});
