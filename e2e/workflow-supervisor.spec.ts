import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { SKIP_REASON, SUPERVISED_WORKFLOW_ID, supervisedTrace, supervisedWorkflowDocument, toJsonl } from '../src-renderer/workflow-supervisor/testing/supervised-trace';
import { ARTIFACTS, shot } from './helpers';

/**
 * Issue 11's app surfaces: a workflow's supervisor turned on in the editor, kept across save,
 * reload and export; and a supervised run with a skip verdict — imported from its JSONL trace, the
 * CLI's --trace format, since the app cannot yet start a supervised run itself — shown with its
 * badge on the graph, its intervention feed and its report.
 */
test.describe.configure({ mode: 'serial' });

let host: HostProcess;
let dataDir: string;
let page: Page;

/** A model on another machine, as a workflow file may name one: its failure details would leave this one. */
const CLOUD = { provider: 'openai_compatible', base_url: 'https://api.example.com/v1', model: 'gpt-x' };

test.beforeAll(async ({ browser }) => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-supervisor-'));
  host = await startHostProcess(dataDir);
  page = await browser.newPage();
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** For the picture: the canvas zoomed in on its middle (where the assert node is) after the fit-to-view. */
async function closeUp(p: Page, name: string): Promise<void> {
  await p.waitForTimeout(400);
  for (let i = 0; i < 3; i++) await p.locator('.react-flow__controls-zoomin').click();
  await p.waitForTimeout(300);
  await p.getByTestId('editor-canvas').screenshot({ path: `${ARTIFACTS}/${name}.png` });
}

async function openApp(hash: string): Promise<void> {
  await page.goto(host.url);
  await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 30_000 });
  await page.evaluate((h) => (window.location.hash = h), hash);
}

test('supervision turned on in the editor (a cloud model: its consent text, the cost cap’s price) is kept across save, reload and export', async () => {
  await openApp('#/workflows');
  const doc = { ...supervisedWorkflowDocument(), supervisor: { enabled: false, who: { kind: 'model', model: CLOUD } } };
  await page.getByTestId('import-workflow-file').setInputFiles({ name: 'must-say-ok.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc)) });
  await page.getByTestId(`open-workflow-${SUPERVISED_WORKFLOW_ID}`).click();

  const panel = page.getByTestId('workflow-supervisor');
  await expect(panel.getByTestId('supervisor-enabled')).not.toBeChecked();
  await expect(panel.getByTestId('supervisor-who')).toHaveCount(0);
  await panel.getByTestId('supervisor-enabled').check();
  await expect(panel.getByTestId('supervisor-who')).toHaveValue('model');
  // The model on another machine: what would leave this one, and to whom, before anything is saved.
  await expect(panel.getByTestId('supervisor-consent')).toContainText('gpt-x');
  await expect(panel.getByTestId('supervisor-consent')).toContainText('this data leaves it');
  await expect(panel.getByTestId('supervisor-consent')).toContainText('the failure message (secrets and credential-named fields masked');

  await panel.getByTestId('supervisor-max-decisions').fill('5');
  await panel.getByTestId('supervisor-max-retries').fill('1');
  await panel.getByTestId('supervisor-cost-cap').fill('0.5');
  // No price: with a cap set the host would refuse this model and run unsupervised. Said here first.
  await expect(panel).toContainText('has no price here');
  await panel.getByTestId('supervisor-price-output').scrollIntoViewIfNeeded();
  await shot(page, 'sv-10-editor-cap-without-price', false);
  await panel.getByTestId('supervisor-price-input').fill('1');
  await panel.getByTestId('supervisor-price-output').fill('4');
  await expect(panel).not.toContainText('has no price here');
  await panel.getByTestId('supervisor-consent').scrollIntoViewIfNeeded();
  await shot(page, 'sv-11-editor-consent', false);
  await page.getByTestId('save-workflow').click();
  await expect(page.getByTestId('saved-indicator')).toHaveText('Saved');

  await page.reload();
  await expect(page.getByTestId('workflow-editor')).toBeVisible({ timeout: 30_000 });
  const again = page.getByTestId('workflow-supervisor');
  await expect(again.getByTestId('supervisor-enabled')).toBeChecked();
  await expect(again.getByTestId('supervisor-max-decisions')).toHaveValue('5');
  await expect(again.getByTestId('supervisor-max-retries')).toHaveValue('1');
  await expect(again.getByTestId('supervisor-cost-cap')).toHaveValue('0.5');
  await expect(again.getByTestId('supervisor-price-output')).toHaveValue('4');
  await expect(again.getByTestId('supervisor-consent')).toBeVisible();
  await expect(again.getByTestId('supervisor-timeout')).toHaveValue('60');
  // A person instead: no model, no consent; the run waits for them unless a timeout is set.
  await again.getByTestId('supervisor-who').selectOption('person');
  await expect(again.getByTestId('supervisor-person')).toContainText('Waiting for you');
  await expect(again.getByTestId('supervisor-consent')).toHaveCount(0);
  await expect(again.getByTestId('supervisor-timeout')).toHaveValue('');
  // Undone: the cloud model and its timeout are back, and nothing is left to save.
  await page.getByTestId('undo').click();
  await expect(again.getByTestId('supervisor-model')).toHaveValue(/.+/);
  await expect(again.getByTestId('supervisor-consent')).toContainText('gpt-x');
  await expect(again.getByTestId('supervisor-timeout')).toHaveValue('60');
  await expect(page.getByTestId('saved-indicator')).toHaveText('Saved');

  await page.evaluate(() => (window.location.hash = '#/workflows'));
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`export-workflow-${SUPERVISED_WORKFLOW_ID}`).click()]);
  const exported = join(ARTIFACTS, 'must-say-ok.workflow.json');
  await download.saveAs(exported);
  expect(HostedWorkflowGraph.parse(JSON.parse(readFileSync(exported, 'utf8'))).supervisor).toMatchObject({
    enabled: true,
    who: { kind: 'model', model: { provider: 'openai_compatible', model: 'gpt-x' } },
    max_decisions: 5,
    max_retries: 1,
    cost_cap_usd: 0.5,
    pricing: { 'api.example.com:gpt-x': { input_per_mtok_usd: 1, output_per_mtok_usd: 4 } },
  });
});

test('a supervised run with a skip verdict: "Completed — supervised", the intervention in the feed, the skip itemized in the report, the shield badge on the graph', async () => {
  const events = supervisedTrace({ cost: 0.0125 });
  const runId = events[0]?.run_id ?? '';
  await openApp('#/runs');
  await page.getByTestId('import-runs-file').setInputFiles({ name: 'supervised.trace.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(toJsonl(events)) });
  await expect(page.getByTestId('runs-action-status')).toContainText('of 1 run');
  const row = page.locator(`[data-testid=run-row][data-run-id="${runId}"]`);
  await expect(row).toContainText('Completed — supervised');

  await page.evaluate((id) => (window.location.hash = `#/runs/${id}/nodes`), runId);
  await expect(page.getByTestId('run-status')).toHaveText('Completed — supervised');
  const feed = page.getByTestId('intervention-feed');
  await expect(feed.getByTestId('intervention-entry')).toHaveCount(1);
  const entry = feed.getByTestId('intervention-entry').first();
  await expect(entry).toHaveAttribute('data-action', 'skip');
  await expect(entry).toHaveAttribute('data-decided-by', 'agent');
  await expect(entry).toContainText('work · item 2');
  await expect(entry).toContainText('decided by the supervisor');
  await expect(entry).toContainText('cost $0.0125');
  await expect(entry).toContainText(SKIP_REASON);

  const report = page.getByTestId('supervision-report');
  await expect(report.getByTestId('supervision-decisions')).toHaveText('1');
  await expect(report.getByTestId('supervision-cost')).toHaveText('$0.0125');
  await expect(report.getByTestId('supervision-skip')).toHaveCount(1);
  await expect(report.getByTestId('supervision-skip')).toContainText('work · item 2');
  await expect(report.getByTestId('supervision-skip')).toContainText(SKIP_REASON);
  await expect(page.getByTestId('run-final')).toContainText('Completed — supervised');
  await shot(page, 'sv-20-run-feed-and-report');

  // The run on the workflow's graph: the skipped node's shield badge, who decided in its accessible name.
  await page.getByTestId('open-in-editor').click();
  await expect(page.getByTestId('run-banner')).toBeVisible({ timeout: 30_000 });
  const badge = page.getByTestId('supervisor-badge-work');
  await expect(badge).toHaveAttribute('data-action', 'skip');
  await expect(badge).toHaveAttribute('aria-label', 'Supervisor verdict: Skip, decided by the supervisor');
  await expect(badge).toContainText('skipped');
  await expect(page.getByTestId('node-state-work')).toContainText('2/3 done');
  await closeUp(page, 'sv-21-graph-badge');
});

test('while the supervisor decides, the node shows "deciding…" and the feed says so', async () => {
  const events = supervisedTrace({ runId: 'supervised-deciding-0001', verdict: null });
  await openApp('#/runs');
  await page.getByTestId('import-runs-file').setInputFiles({ name: 'deciding.trace.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(toJsonl(events)) });
  await expect(page.getByTestId('runs-action-status')).toContainText('of 1 run');
  await page.evaluate(() => (window.location.hash = `#/workflows/must-say-ok/edit/supervised-deciding-0001`));
  await expect(page.getByTestId('supervisor-deciding-work')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('node-work')).toHaveClass(/wf-node--deciding/);
  await closeUp(page, 'sv-30-graph-deciding');
  await page.evaluate(() => (window.location.hash = `#/runs/supervised-deciding-0001/nodes`));
  await expect(page.getByTestId('intervention-entry')).toHaveAttribute('data-action', 'deciding');
  await expect(page.getByTestId('intervention-feed')).toContainText('The supervisor is deciding');
});

test('a supervised run started in the app: the replay supervisor skips the failing item, the graph shows the badge live, the run view its feed and report', async () => {
  // The same graph, supervised by the replay model, whose script answers the one escalation with a skip.
  const verdict = { json: { step: 'verdict', verdict: { action: 'skip', reason: 'not an ok line: leave it out' } } };
  const doc = { ...supervisedWorkflowDocument(), id: 'must-say-ok-live', name: 'Must say ok (live)', supervisor: { enabled: true, who: { kind: 'model', model: { provider: 'script' }, script: { teacher: [verdict] } }, max_decisions: 3 } };
  await openApp('#/workflows');
  await page.getByTestId('import-workflow-file').setInputFiles({ name: 'must-say-ok-live.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc)) });
  await page.getByTestId('open-workflow-must-say-ok-live').click();
  await expect(page.getByTestId('workflow-supervisor').getByTestId('supervisor-local')).toContainText('runs on this machine');
  await page.getByTestId('run-workflow').click();
  await page.getByTestId('run-input-items').fill(JSON.stringify(['ok one', 'not this', 'ok three']));
  await page.getByTestId('run-start').click();

  await expect(page.getByTestId('run-banner')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  const badge = page.getByTestId('supervisor-badge-work');
  await expect(badge).toHaveAttribute('data-action', 'skip');
  await expect(badge).toHaveAttribute('aria-label', 'Supervisor verdict: Skip, decided by the supervisor');
  await closeUp(page, 'sv-40-live-graph-badge');

  await page.getByTestId('open-run').click();
  await expect(page.getByTestId('run-status')).toHaveText('Completed — supervised');
  // The header names the workflow's supervisor, not the agent teacher's "Supervision: Off".
  await expect(page.getByTestId('run-supervision')).toHaveText('model (replay)');
  await page.locator('.run-head').screenshot({ path: `${ARTIFACTS}/workflow-supervisor-run-header.png` });
  const entry = page.getByTestId('intervention-feed').getByTestId('intervention-entry');
  await expect(entry).toHaveCount(1);
  await expect(entry).toHaveAttribute('data-decided-by', 'agent');
  await expect(entry).toContainText('work · item 2');
  await expect(entry).toContainText('not an ok line: leave it out');
  await expect(page.getByTestId('supervision-skip')).toContainText('work · item 2');
  await expect(page.getByTestId('supervision-decisions')).toHaveText('1');
  await expect(page.getByTestId('supervision-cost')).toHaveText('$0');
  await expect(page.getByTestId('run-outputs')).toContainText('ok three');
  await shot(page, 'sv-41-live-run-report');
});
