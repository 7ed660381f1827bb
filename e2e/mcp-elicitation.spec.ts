import { expect, test } from '@playwright/test';
import { connectHost } from '../test-support/host-process';
import { askingServerWorkflow, elicitingWorkflow } from '../test-support/elicitation-workflow';
import { shot, storedEvents } from './helpers';
import { ownHostAndPage } from './own-host';

/**
 * An MCP server asks the person during an app run (issue 13): the shipped server-everything's
 * elicitation tool, called by a scripted agent (the model boundary's test double), shows its form
 * in the run view; a reload while it waits shows it again; the person's values reach the server.
 */

const own = ownHostAndPage('elicit');

test('a person fills in the server’s form in the run view (also after a reload) and the tool call completes with their values', async () => {
  test.setTimeout(150_000);
  const { host, page } = own;
  const api = await connectHost(host);
  await api.request('workflows.save', { workflow: elicitingWorkflow() });
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible({ timeout: 30_000 });
  const { run_id } = (await api.request('workflows.run', { id: 'asks-person', inputs: {} })) as { run_id: string };
  api.close();
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), run_id);
  const card = page.getByTestId('server-ask');
  await expect(card).toBeVisible({ timeout: 60_000 });
  await expect(card).toContainText('MCP server ev asks you');

  // A reload while the server waits: the ask is shown again (the host holds it, not the page).
  await page.reload();
  await expect(card).toBeVisible({ timeout: 30_000 });
  // Waiting for you lists it too.
  await page.evaluate(() => (window.location.hash = '#/interventions'));
  await expect(page.getByTestId('interventions-view').getByTestId('server-ask')).toBeVisible({ timeout: 30_000 });
  // …and counts it: the sidebar's badge, the page's own count, and not "Nothing waits for you".
  await expect(page.getByTestId('waiting-count')).toHaveAttribute('data-count', '1');
  await expect(page.getByTestId('interventions-view')).toContainText('1 waiting for you');
  await expect(page.getByTestId('interventions-empty')).toHaveCount(0);
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), run_id);
  await expect(card).toBeVisible({ timeout: 30_000 });

  // Keyboard first: the first field takes focus and typing.
  await page.getByTestId('ask-field-name').focus();
  await page.keyboard.type('Ada Lovelace');
  await page.getByTestId('ask-field-email').fill('not-an-email');
  await page.getByTestId('ask-field-integer').fill('7');
  const selects = card.locator('select');
  for (let i = 0; i < (await selects.count()); i += 1) await selects.nth(i).selectOption({ index: 1 });
  // A wrong entry is said at its field; nothing is sent.
  await page.getByTestId('server-ask-accept').click();
  await expect(card.locator('.form-row__issue').first()).toBeVisible();
  await expect(card).toContainText('expected an email address');
  await page.getByTestId('ask-field-email').fill('ada@example.com');
  await expect(card).not.toContainText('expected an email address');
  await shot(page, 'mcp-elicitation-form');
  await page.getByTestId('ask-field-email').press('Enter');

  await expect(card).toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByTestId('waiting-count')).toHaveAttribute('data-count', '0');
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  // The server got the person's values: its tool result (in the Trace tab) echoes them.
  const events = JSON.stringify(await storedEvents(page, run_id));
  expect(events).toContain('ada@example.com');
  expect(events).toContain('"type":"mcp.elicitation"');
  await shot(page, 'mcp-elicitation-done');
});

test('with sampling "ask", the person sees the server’s model request in the page and allows it, then sees the model’s answer and sends it on; the server gets it', async () => {
  test.setTimeout(150_000);
  const { host, page } = own;
  const api = await connectHost(host);
  const workflow = askingServerWorkflow('samples', { tool: 'trigger-sampling-request', arguments: { prompt: 'Say hello', maxTokens: 50 }, replies: [{ text: 'Hello from the run model' }], sampling: 'ask' });
  await api.request('workflows.save', { workflow });
  const { run_id } = (await api.request('workflows.run', { id: 'samples', inputs: {} })) as { run_id: string };
  api.close();
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), run_id);
  const card = page.getByTestId('server-ask');
  await expect(card).toHaveAttribute('data-kind', 'sampling', { timeout: 60_000 });
  await expect(page.getByTestId('server-ask-sampling')).toContainText('Say hello');
  await expect(page.getByTestId('server-ask-sampling')).toContainText('at most 50 tokens');
  await shot(page, 'mcp-sampling-ask');
  await page.getByTestId('server-ask-accept').focus();
  await page.keyboard.press('Enter');
  // Then the model's answer, before the server gets it: the person sends it on.
  await expect(page.getByTestId('server-ask-sampling-reply')).toContainText('Hello from the run model', { timeout: 30_000 });
  await expect(page.getByTestId('server-ask-accept')).toHaveText('Send the answer');
  await shot(page, 'mcp-sampling-reply');
  await page.getByTestId('server-ask-accept').focus();
  await page.keyboard.press('Enter');
  await expect(card).toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  expect(JSON.stringify(await storedEvents(page, run_id))).toContain('Hello from the run model');
});
