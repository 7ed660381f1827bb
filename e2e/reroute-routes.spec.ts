import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { helpdeskWorkflow } from '../test-support/helpdesk-workflow';
import { ownHostAndPage } from './own-host';

// Issue 29, reroute routes (seed 000): a person opens a workflow whose agent declares routes, sees
// each route as an output port, adds one in the inspector, runs it with the replay model (the test
// double at the model boundary: the node's script), and sees in the run view which route was taken
// and who chose it, and that the other route's work was skipped. Real host, real page.

const SHOTS = '/tmp/shots';
mkdirSync(SHOTS, { recursive: true });
const held = ownHostAndPage('routes');

const WORKFLOW = helpdeskWorkflow();

test('an agent with routes: its routes are ports in the editor, and the run view shows the route taken, who chose it, and the other route skipped', async () => {
  const { page, host } = held;
  await page.setViewportSize({ width: 1360, height: 900 });
  const dir = mkdtempSync(join(tmpdir(), 'steward-e2e-routes-file-'));
  try {
    const file = join(dir, 'helpdesk.workflow.json');
    writeFileSync(file, JSON.stringify(WORKFLOW));
    await page.goto(host.url);
    await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 20_000 });
    await page.evaluate(() => (window.location.hash = '#/workflows'));
    await page.getByTestId('import-workflow-file').setInputFiles(file);
    await expect(page.getByTestId('open-workflow-helpdesk')).toBeVisible();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // The editor: each route is an output port of the agent, beside its answer.
  await page.getByTestId('open-workflow-helpdesk').click();
  const triage = page.getByTestId('node-triage');
  await expect(triage).toBeVisible();
  await expect(page.getByTestId('port-triage-out-output')).toBeVisible();
  await expect(page.getByTestId('port-triage-out-billing')).toHaveAttribute('data-route', 'true');
  await expect(page.getByTestId('port-triage-out-support')).toContainText('route');

  // The inspector lists the routes; a person adds one and names it: a new port appears on the node.
  await triage.click();
  const routes = page.getByTestId('inspector-routes');
  await expect(routes.getByTestId('inspector-routes-0-name')).toHaveValue('billing');
  await expect(routes.getByTestId('inspector-routes-1-name')).toHaveValue('support');
  await routes.getByTestId('inspector-routes-add').click();
  await routes.getByTestId('inspector-routes-2-name').fill('sales');
  await routes.getByTestId('inspector-routes-2-description').fill('buying more seats');
  await expect(page.getByTestId('port-triage-out-sales')).toBeVisible();
  // A duplicate name is refused in words while it is typed.
  await routes.getByTestId('inspector-routes-2-name').fill('billing');
  await expect(routes.getByTestId('inspector-routes-problem')).toHaveText('route 3: duplicate route billing');
  await routes.getByTestId('inspector-routes-2-name').fill('sales');
  await expect(routes.getByTestId('inspector-routes-problem')).toHaveCount(0);
  // The agent's Runtime limits, the fields of its Supervision & Learning panel: out of range refused in words, in range kept.
  const runtime = page.getByTestId('inspector-runtime');
  await expect(runtime.getByTestId('inspector-max-rounds')).toHaveValue('2');
  await runtime.getByTestId('inspector-decision-timeout').fill('900');
  await expect(runtime).toContainText('The decision timeout is from 1 to 600 seconds, in whole milliseconds.');
  await expect(runtime.getByTestId('inspector-decision-timeout')).toHaveAttribute('aria-invalid', 'true');
  await runtime.screenshot({ path: `${SHOTS}/29-editor-runtime-refused.png` });
  await runtime.getByTestId('inspector-decision-timeout').fill('30');
  await expect(runtime.getByTestId('inspector-decision-timeout')).not.toHaveAttribute('aria-invalid');
  await expect(runtime).not.toContainText('The decision timeout is from');
  await page.screenshot({ path: `${SHOTS}/29-routes-editor.png` });
  await page.getByTestId('save-workflow').click();
  await expect(page.getByTestId('saved-indicator')).toBeVisible();

  // Run it: the replay student reroutes to support.
  await page.getByTestId('run-workflow').click();
  await page.getByTestId('run-input-request').fill('I cannot log in since this morning');
  await page.getByTestId('run-start').click();
  await page.getByTestId('open-run').click();
  await expect(page).toHaveURL(/#\/runs\//);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });

  // The run view: the agent's row says which route it took; opened, who chose it and why.
  const row = page.locator('[data-testid=node-invocation][data-invocation-id="triage"]');
  await expect(row).toHaveAttribute('data-status', 'done');
  await expect(row.getByTestId('taken-route-tag')).toHaveText('→ support');
  await row.locator('.node-inv__toggle').click();
  const taken = row.getByTestId('taken-route');
  await expect(taken).toHaveText('Took route support · chosen by the student: a log-in problem');
  await expect(taken).toHaveAttribute('data-chosen-by', 'student');
  // Support's work ran; billing's was skipped, saying why in words.
  await expect(page.locator('[data-testid=node-invocation][data-invocation-id="help_note"]')).toHaveAttribute('data-status', 'done');
  const billing = page.locator('[data-testid=node-invocation][data-invocation-id="bill_note"]');
  await expect(billing).toHaveAttribute('data-status', 'skipped');
  await billing.locator('.node-inv__toggle').click();
  await expect(billing.getByTestId('node-failure')).toContainText('another route was taken');
  await expect(billing.getByTestId('node-failure')).toContainText('triage took route support, not billing');
  await expect(page.getByTestId('run-final')).toContainText('Support: a log-in problem');
  await page.screenshot({ path: `${SHOTS}/29-routes-run.png`, fullPage: true });
});

test('the Supervision & Learning panel shows an agent workflow\'s routes; one added there is stored in its document and is there after a reload', async () => {
  const { page } = held;
  await page.evaluate(() => (window.location.hash = '#/workflows/notes-assistant'));
  const section = page.getByTestId('routes-section');
  await expect(section).toContainText('No routes: a reroute stops the agent.');
  await section.getByTestId('panel-routes-add').click();
  // Typed key by key, as a person types: each valid keystroke is stored at once, and the echo of an
  // earlier keystroke's write must not drop the ones typed since (CI once stored the added route's
  // default name under the typed description).
  await section.getByTestId('panel-routes-0-name').fill('');
  await section.getByTestId('panel-routes-0-name').pressSequentially('mail_agent');
  await section.getByTestId('panel-routes-0-description').pressSequentially('anything to send by mail');
  await expect(section.getByTestId('panel-routes-0-name')).toHaveValue('mail_agent');
  await expect(section.getByTestId('panel-routes-0-description')).toHaveValue('anything to send by mail');
  await expect(section.getByTestId('panel-routes-problem')).toHaveCount(0);
  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/29-routes-panel.png` });
  // Stored in the workflow's own document: a reload reads it back.
  await expect.poll(async () => page.evaluate(async () => {
    const open = indexedDB.open('steward');
    const db = await new Promise<IDBDatabase>((resolve, reject) => ((open.onsuccess = () => resolve(open.result)), (open.onerror = () => reject(open.error))));
    const row = await new Promise<{ doc?: { routes?: unknown } } | undefined>((resolve) => {
      const get = db.transaction('workflows').objectStore('workflows').get('notes-assistant');
      get.onsuccess = () => resolve(get.result as { doc?: { routes?: unknown } } | undefined);
    });
    db.close();
    return row?.doc?.routes;
  })).toEqual([{ name: 'mail_agent', description: 'anything to send by mail' }]);
  await page.reload();
  await expect(page.getByTestId('routes-section').getByTestId('panel-routes-0-name')).toHaveValue('mail_agent', { timeout: 20_000 });
});
