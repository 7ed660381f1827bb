import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { supervisedWorkflowDocument } from '../src-renderer/workflow-supervisor/testing/supervised-trace';

/**
 * Issue 29 in the app: a workflow run supervised by a replay model (the scripted provider, the
 * double at the model boundary) that answers the first failed item with prose four times — its
 * repair rounds run out, the item fails — and the second with a skip. The run report lists the
 * supervisor's decisions with their reasons (what its prompt recalls), and the answer Steward
 * could not use is one click away.
 */

const SHOTS = '/tmp/shots/issue-29';
mkdirSync(SHOTS, { recursive: true });

let host: HostProcess;
let dataDir: string;
let page: Page;

test.beforeAll(async ({ browser }) => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-sv-memory-'));
  host = await startHostProcess(dataDir);
  page = await browser.newPage();
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const PROSE = { text: 'Honestly, I would just drop this one.' };
const SKIP_REASON = 'not an ok line: the list goes on without it';

test('the run report lists the supervisor’s decisions with their reasons; an unusable answer is said in words, the raw answer one click away', async () => {
  const base = supervisedWorkflowDocument() as { nodes: Array<Record<string, unknown>> };
  const doc = {
    ...base,
    id: 'must-say-ok-memory',
    name: 'Must say ok (memory)',
    // One item at a time, so the first failed item meets the prose and the second the skip.
    nodes: base.nodes.map((n) => (n.id === 'each' ? { ...n, concurrency: 1 } : n)),
    supervisor: { enabled: true, who: { kind: 'model', model: { provider: 'script' }, script: { teacher: [PROSE, PROSE, PROSE, PROSE, { json: { step: 'verdict', verdict: { action: 'skip', reason: SKIP_REASON } } }] } }, max_decisions: 5 },
  };
  await page.goto(host.url);
  await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 30_000 });
  await page.evaluate(() => (window.location.hash = '#/workflows'));
  await page.getByTestId('import-workflow-file').setInputFiles({ name: 'memory.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc)) });
  await page.getByTestId('open-workflow-must-say-ok-memory').click();
  await page.getByTestId('run-workflow').click();
  await page.getByTestId('run-input-items').fill(JSON.stringify(['ok one', 'not this', 'nor that']));
  await page.getByTestId('run-start').click();
  await expect(page.getByTestId('run-banner')).not.toHaveAttribute('data-status', 'running', { timeout: 60_000 });
  await page.getByTestId('open-run').click();

  const report = page.getByTestId('supervision-report');
  await expect(report).toContainText('The supervisor’s decisions');
  await expect(report).toContainText('Each new decision’s prompt recalls the last 20 of them.');
  const decisions = report.getByTestId('supervision-decision');
  await expect(decisions).toHaveCount(2);

  const first = decisions.nth(0);
  await expect(first).toHaveAttribute('data-action', 'fail');
  await expect(first).toHaveAttribute('data-decided-by', 'kernel');
  await expect(first).toContainText('work · item 2');
  await expect(first).toContainText('the supervisor gave no usable verdict in 4 answers (3 repair rounds), so the node fails as it would have without supervision');
  // The raw answer is there, closed: what a person reads first is the sentence above.
  const answer = first.getByTestId('supervision-malformed');
  await expect(answer).not.toHaveAttribute('open', '');
  await expect(answer.locator('pre')).toBeHidden();
  await report.scrollIntoViewIfNeeded();
  await report.screenshot({ path: `${SHOTS}/report-decisions-closed.png` });
  await answer.locator('summary').click();
  await expect(answer.locator('pre')).toHaveText(PROSE.text);
  await expect(answer).toContainText('the answer is not a JSON object (after 3 repair rounds)');

  const second = decisions.nth(1);
  await expect(second).toHaveAttribute('data-action', 'skip');
  await expect(second).toHaveAttribute('data-decided-by', 'agent');
  await expect(second).toContainText('work · item 3');
  await expect(second).toContainText(SKIP_REASON);
  await expect(second.getByTestId('supervision-malformed')).toHaveCount(0);
  await report.screenshot({ path: `${SHOTS}/report-decisions-open.png` });
});
