import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import type { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';
import { ensureBuilt } from '../test-support/ensure-built';
import { connectHost, startHostProcess, waitFor, type HostProcess } from '../test-support/host-process';
import { EXTRACT_PROSE, personSupervisedExtract, personSupervisedReads, personSupervisedStream } from '../test-support/person-supervised-workflow';
import { NOTES_SANDBOX } from '../test-support/workspace';
import { shot, theOneWaitingRow } from './helpers';

// Real host processes (stopped and started again on the same data folder), renderer and IndexedDB,
// the shipped filesystem MCP server; no test double: the person is the supervisor (issue 11).
test.describe.configure({ mode: 'serial' });

let host: HostProcess;
let dataDir: string;
let page: Page;

test.beforeAll(async ({ browser }) => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-person-sup-'));
  page = await browser.newPage();
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a supervised node that failed waits for the person across a host restart; their skip, given by keyboard in Waiting for you, completes the run', async () => {
  test.setTimeout(240_000);
  const sandbox = join(dataDir, 'workspaces', 'notes');
  mkdirSync(join(dataDir, 'workspaces'), { recursive: true });
  cpSync(NOTES_SANDBOX, sandbox, { recursive: true });

  host = await startHostProcess(dataDir);
  const api = await connectHost(host);
  await api.request('events.subscribe', {});
  await api.request('workspaces.register', { workspace: { id: 'notes', path: sandbox } });
  await api.request('workflows.save', { workflow: personSupervisedReads() });
  const { run_id } = (await api.request('workflows.run', { id: 'read-notes', inputs: { items: [join(sandbox, 'ideas.md'), join(sandbox, 'missing.md')] } })) as { run_id: string };
  await waitFor(() => api.events.some((e) => e.run_id === run_id && e.type === 'intervention.requested'), 60_000, 'the escalation to wait for the person');
  api.close();

  // The host stops while the escalation waits; a new one on the same data folder still has it.
  await host.stop();
  host = await startHostProcess(dataDir);

  const row = await theOneWaitingRow(page, host.url);
  await expect(row).toHaveAttribute('data-kind', 'supervisor_escalation');
  await expect(row).toContainText('read failed');
  await row.getByTestId('intervention-answer-here').click();

  const card = page.getByTestId('intervention-card');
  await expect(card).toHaveAttribute('data-kind', 'supervisor_escalation');
  await expect(card.getByTestId('escalation-node')).toContainText('read');
  await expect(card.getByTestId('escalation-detail')).toContainText('missing.md');
  await expect(card.getByTestId('escalation-signature')).toBeVisible();
  // Exactly the verdicts the kernel allows a failed read: retry (a read is retry-safe), skip, fail; no substitute.
  await expect(card.getByTestId('escalation-skip')).toBeVisible();
  await expect(card.getByTestId('escalation-fail')).toBeVisible();
  await expect(card.getByTestId('escalation-retry')).toBeVisible();
  await expect(card.getByTestId('escalation-substitute')).toHaveCount(0);
  await shot(page, 'supervisor-person-escalation');

  // By keyboard: the reason, then Tab past Retry to Skip and Enter.
  await card.getByTestId('escalation-reason').focus();
  await page.keyboard.type('That note was never written.');
  await page.keyboard.press('Tab');
  await expect(card.getByTestId('escalation-retry')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(card.getByTestId('escalation-skip')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('interventions-empty')).toBeVisible({ timeout: 30_000 });

  await page.evaluate((id) => (window.location.hash = `#/runs/${id}/nodes`), run_id);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  await shot(page, 'supervisor-person-run-completed');
});

test('a read made a stream in the editor breaks part-way and is offered only End stream or Fail; the person ends it there and the run completes with what it sent', async () => {
  test.setTimeout(180_000);
  const sandbox = join(dataDir, 'workspaces', 'notes');
  const api = await connectHost(host);
  await api.request('events.subscribe', {});
  // Saved as a plain read of one file; the person makes it a stream in the editor.
  const { stream: _stream, ...plainRead } = personSupervisedStream().nodes.find((n) => n.id === 'read') as Extract<HostedWorkflowGraph['nodes'][number], { kind: 'tool' }>;
  const plain = { ...personSupervisedStream(), nodes: personSupervisedStream().nodes.map((n) => (n.id === 'read' ? { ...plainRead, arguments: { path: 'ideas.md' } } : n)) };
  await api.request('workflows.save', { workflow: plain });
  await page.evaluate(() => (window.location.hash = '#/workflows'));
  await page.getByTestId('open-workflow-stream-notes').click();
  await page.getByTestId('node-read').click();
  const inspector = page.getByTestId('inspector');
  await expect(inspector.getByTestId('inspector-tool-stream')).toHaveValue('');
  await inspector.getByTestId('inspector-tool-stream').selectOption('files');
  await inspector.getByTestId('inspector-tool-arguments').fill(JSON.stringify({ path: '{{item}}' }));
  await expect(page.getByTestId('node-read')).toContainText('streams each of files');
  await shot(page, 'supervisor-person-stream-editor');
  await page.getByTestId('save-workflow').click();
  await expect(page.getByTestId('saved-indicator')).toHaveText('Saved');
  const saved = (await api.request('workflows.get', { id: 'stream-notes' })) as { workflow: HostedWorkflowGraph };
  expect(saved.workflow.nodes.find((n) => n.id === 'read')).toMatchObject({ stream: { over: 'files' }, arguments: { path: '{{item}}' } });

  const files = ['ideas.md', 'meeting-notes.md', 'missing.md', 'ideas.md'].map((f) => join(sandbox, f));
  const { run_id } = (await api.request('workflows.run', { id: 'stream-notes', inputs: { files } })) as { run_id: string };
  await waitFor(() => api.events.some((e) => e.run_id === run_id && e.type === 'intervention.requested'), 60_000, 'the stream escalation to wait for the person');

  await page.evaluate(() => (window.location.hash = '#/interventions'));
  const rows = page.getByTestId('intervention-row');
  await expect(rows).toHaveCount(1, { timeout: 30_000 });
  await rows.first().getByTestId('intervention-answer-here').click();
  const card = page.getByTestId('intervention-card');
  await expect(card.getByTestId('escalation-detail')).toContainText('2 of 4 results were already sent on');
  // A stream's first results are already downstream: only ending it there or failing it is coherent.
  await expect(card.getByTestId('escalation-end_stream')).toBeVisible();
  await expect(card.getByTestId('escalation-fail')).toBeVisible();
  for (const action of ['retry', 'skip', 'substitute']) await expect(card.getByTestId(`escalation-${action}`)).toHaveCount(0);
  await shot(page, 'supervisor-person-stream-escalation');
  await card.getByTestId('escalation-reason').fill('Two notes are enough for today.');
  await card.getByTestId('escalation-end_stream').click();
  await expect(page.getByTestId('interventions-empty')).toBeVisible({ timeout: 30_000 });

  await waitFor(() => api.events.some((e) => e.run_id === run_id && e.type === 'run.finished'), 60_000, 'the stream run to finish');
  const finished = api.events.find((e) => e.run_id === run_id && e.type === 'run.finished') as { status?: string; outputs?: { list?: unknown[] } } | undefined;
  expect(finished?.status).toBe('completed');
  expect(finished?.outputs?.list).toHaveLength(2);
  api.close();
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}/nodes`), run_id);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  // The stream's row says how many calls it made: the two it sent and the one that broke.
  await expect(page.getByTestId('node-tool-calls')).toHaveText('3 calls');
  await shot(page, 'supervisor-person-stream-completed');
});

test('an output schema set in the editor refuses the agent\'s prose; the person sees it and types the repair, one the schema refuses comes back with the problem, one it accepts completes the run', async () => {
  test.setTimeout(180_000);
  const api = await connectHost(host);
  await api.request('events.subscribe', {});
  await api.request('workflows.save', { workflow: personSupervisedExtract() });
  await page.evaluate(() => (window.location.hash = '#/workflows'));
  await page.getByTestId('open-workflow-extract-name').click();
  await shot(page, 'supervisor-person-extract-opened');
  await page.getByTestId('node-extract').click();
  const schema = page.getByTestId('inspector').getByTestId('inspector-output-schema');
  await expect(schema).toHaveValue('null');
  await schema.fill(JSON.stringify({ type: 'object', required: ['name'], properties: { name: { type: 'string' } } }));
  await page.getByTestId('save-workflow').click();
  await expect(page.getByTestId('saved-indicator')).toHaveText('Saved');

  const { run_id } = (await api.request('workflows.run', { id: 'extract-name', inputs: { text: 'Ada wrote the first program.' } })) as { run_id: string };
  await waitFor(() => api.events.some((e) => e.run_id === run_id && e.type === 'intervention.requested'), 60_000, 'the refused answer to wait for the person');
  await page.evaluate(() => (window.location.hash = '#/interventions'));
  const rows = page.getByTestId('intervention-row');
  await expect(rows).toHaveCount(1, { timeout: 30_000 });
  await rows.first().getByTestId('intervention-answer-here').click();
  const card = page.getByTestId('intervention-card');
  // What the agent said, and why it cannot go on as it is.
  await expect(card.getByTestId('escalation-candidate')).toContainText(EXTRACT_PROSE);
  await expect(card.getByTestId('escalation-detail')).toContainText('schema');
  await expect(card.getByTestId('escalation-substitute')).toBeVisible();
  const value = card.getByTestId('escalation-substitute-value');
  // Plain text is not what the schema asks for: the card comes back with the problem.
  await value.fill(JSON.stringify({ output: 'Ada' }));
  await card.getByTestId('escalation-reason').fill('The name, by hand.');
  await card.getByTestId('escalation-substitute').click();
  // The node asks again, saying why the value was refused.
  await expect(rows.first()).toContainText('The substitute value was refused: output: the value does not match the schema', { timeout: 30_000 });
  // Asked again where the person was answering: the card is open already.
  await expect(rows.first().getByTestId('intervention-answer-here')).toHaveAttribute('aria-expanded', 'true');
  await expect(card.getByTestId('escalation-feedback')).toContainText('does not match the schema');
  // The person goes on from the value they sent, not the node's prose.
  await expect(card.getByTestId('escalation-substitute-value')).toHaveValue(/"output": "Ada"/);
  await shot(page, 'supervisor-person-substitute-refused');
  await card.getByTestId('escalation-substitute-value').fill(JSON.stringify({ output: '{"name": "Ada"}' }));
  await card.getByTestId('escalation-substitute').click();
  await expect(page.getByTestId('interventions-empty')).toBeVisible({ timeout: 30_000 });

  await waitFor(() => api.events.some((e) => e.run_id === run_id && e.type === 'run.finished'), 60_000, 'the run to finish');
  const finished = api.events.find((e) => e.run_id === run_id && e.type === 'run.finished') as { status?: string; outputs?: { person?: unknown } } | undefined;
  expect(finished?.status).toBe('completed');
  expect(finished?.outputs?.person).toBe('{"name": "Ada"}');
  api.close();
});
