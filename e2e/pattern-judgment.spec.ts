import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import type { FakeOllama } from '../test-support/fake-ollama';
import { connectHost, startHostProcess, waitFor, type HostProcess } from '../test-support/host-process';
import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';
import { FIRST_REPORT, humanJudgedWorkflow, startJudgedModels } from '../test-support/human-judged-pattern';
import { shot } from './helpers';

// Real host, renderer and IndexedDB; the pattern's worker is a local model on the fake Ollama
// server (the model boundary's test double) whose answer depends on the feedback in its prompt.
test.describe.configure({ mode: 'serial' });

let ollama: FakeOllama;
let host: HostProcess;
let dataDir: string;
let page: Page;

test.beforeAll(async ({ browser }) => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-judgment-'));
  ollama = await startJudgedModels();
  host = await startHostProcess(dataDir, { OLLAMA_HOST: ollama.url });
  page = await browser.newPage();
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  await ollama?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a person judges a pattern node in Waiting for you: the feedback changes the next iteration, the approval ends it, the run view shows the iterations with each judgment', async () => {
  // Two model-backed iterations, two answers, the run view and the editor: more than the default time under load.
  test.setTimeout(240_000);
  const api = await connectHost(host);
  await api.request('events.subscribe', {});
  await api.request('workflows.save', { workflow: humanJudgedWorkflow() });
  const { run_id } = (await api.request('workflows.run', { id: 'judged-report', inputs: { task: 'Write the incident report.' } })) as { run_id: string };
  await waitFor(() => api.events.some((e) => e.run_id === run_id && e.type === 'intervention.requested'), 30_000, 'the judgment to be asked');
  api.close();

  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible({ timeout: 30_000 });
  await page.evaluate(() => (window.location.hash = '#/interventions'));
  const rows = page.getByTestId('intervention-row');
  await expect(rows).toHaveCount(1, { timeout: 30_000 });
  await expect(rows.first()).toHaveAttribute('data-kind', 'pattern_judgment');
  await expect(rows.first()).toContainText('Judge the output of the SUPERVISOR pattern report (iteration 1 of 3)');
  await rows.first().getByTestId('intervention-answer-here').click();

  const card = page.getByTestId('intervention-card');
  await expect(card).toHaveAttribute('data-kind', 'pattern_judgment');
  await expect(card.getByTestId('judgment-output')).toHaveText(FIRST_REPORT);
  await expect(card.getByTestId('judgment-member-output')).toHaveCount(1);
  await expect(card.getByTestId('judgment-cite')).toBeChecked();
  await expect(card.getByTestId('judgment-reject')).toBeDisabled();
  await shot(page, 'pattern-judgment-iteration-1');

  // By keyboard: the feedback, then Ctrl+Enter rejects with it.
  await card.getByTestId('judgment-feedback').focus();
  await page.keyboard.type('Add a timeline.');
  await expect(card.getByTestId('judgment-reject')).toBeEnabled();
  await page.keyboard.press('Control+Enter');

  // Iteration 2 addresses the feedback and is asked in turn.
  await expect(rows).toHaveCount(1, { timeout: 30_000 });
  await expect(rows.first()).toContainText('iteration 2 of 3', { timeout: 30_000 });
  // Asked again in the run whose question the person had open: its card is open already.
  await expect(rows.first().getByTestId('intervention-answer-here')).toHaveAttribute('aria-expanded', 'true');
  const second = page.getByTestId('intervention-card');
  await expect(second.getByTestId('judgment-iteration')).toContainText('iteration 2 of 3');
  await expect(second.getByTestId('judgment-previous-feedback')).toContainText('Add a timeline.');
  await expect(second.getByTestId('judgment-output')).toContainText('Revised to address: Add a timeline.');
  await shot(page, 'pattern-judgment-iteration-2');
  await second.getByTestId('judgment-approve').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('interventions-empty')).toBeVisible({ timeout: 30_000 });

  // The run view: completed, and the pattern node's iterations as a timeline with each judgment.
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}/nodes`), run_id);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  const node = page.locator('[data-testid="node-invocation"][data-node="report"]');
  await node.locator('.node-inv__toggle').click();
  const timeline = node.getByTestId('pattern-timeline');
  const iterations = timeline.getByTestId('pattern-iteration');
  await expect(iterations).toHaveCount(2);
  await expect(iterations.nth(0)).toHaveAttribute('data-outcome', 'rejected');
  await expect(iterations.nth(0).getByTestId('pattern-judgment')).toHaveAttribute('data-caller', 'human');
  await expect(iterations.nth(0).getByTestId('pattern-judgment-feedback')).toContainText('Add a timeline.');
  await expect(iterations.nth(0).getByTestId('pattern-judgment-evidence')).toContainText('worker');
  await expect(iterations.nth(1)).toHaveAttribute('data-outcome', 'approved');
  await expect(iterations.nth(1).getByTestId('pattern-iteration-addresses')).toContainText('Add a timeline.');
  await expect(timeline.getByTestId('pattern-ended')).toHaveAttribute('data-status', 'approved');
  await node.scrollIntoViewIfNeeded();
  await shot(page, 'pattern-judgment-timeline');

  // What each member did in an iteration: opened by keyboard, its answer, then its rounds.
  const toggle = iterations.nth(1).getByTestId('pattern-members-toggle');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.focus();
  await page.keyboard.press('Enter');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  const member = iterations.nth(1).getByTestId('pattern-member');
  await expect(member).toHaveCount(1);
  await expect(member).toHaveAttribute('data-member', 'worker#2');
  await expect(member).toHaveAttribute('data-status', 'completed');
  await expect(member.getByTestId('pattern-member-output')).toContainText('Revised to address: Add a timeline.');
  const roundsToggle = member.getByTestId('pattern-member-rounds-toggle');
  await roundsToggle.focus();
  await page.keyboard.press('Space');
  await expect(roundsToggle).toHaveAttribute('aria-expanded', 'true');
  await expect(member.getByTestId('pattern-member-rounds').getByTestId('round-card')).not.toHaveCount(0);
  // Iteration 1's member is its own run: its answer is the first report, not the revision.
  await iterations.nth(0).getByTestId('pattern-members-toggle').click();
  await expect(iterations.nth(0).getByTestId('pattern-member-output')).toHaveText(FIRST_REPORT);
  await member.scrollIntoViewIfNeeded();
  await shot(page, 'pattern-judgment-members');

  // The editor configures the node like any node: its pattern, members and judgment.
  await page.evaluate(() => (window.location.hash = '#/workflows/judged-report/edit'));
  await page.locator('.react-flow__controls-fitview').click();
  await page.getByTestId('node-report').click();
  const inspector = page.getByTestId('inspector');
  await expect(inspector.getByTestId('inspector-pattern-type')).toHaveValue('SUPERVISOR');
  await expect(inspector.getByTestId('inspector-judgment-caller')).toHaveAttribute('data-caller-kind', 'human');
  await shot(page, 'pattern-judgment-editor');
});

/** A pattern whose member asks a person first (replay scripts: the scripted provider is the double at the model boundary). */
function askingMemberWorkflow(): HostedWorkflowGraph {
  const complete = (output: string) => ({ json: { decision_type: 'complete', output } });
  return HostedWorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'asking-member',
    name: 'Asking member',
    nodes: [
      { id: 'in', kind: 'input', position: { x: 0, y: 0 }, fields: [{ name: 'task', type: 'text' }] },
      {
        id: 'report',
        kind: 'pattern',
        position: { x: 260, y: 0 },
        type: 'SUPERVISOR',
        task: '{{task}}',
        inputs: [{ name: 'task', type: 'text' }],
        members: [{ id: 'worker', role: 'worker', instructions: 'Write the report.', script: { student: [{ json: { decision_type: 'ask_user', question: 'Which outage is this about?' } }, complete('Report on the Tuesday sync outage.')] } }],
        max_iterations: 2,
        judgment: { mode: 'post_step', callers: [{ kind: 'llm', profile: 'judge' }], verifier: { must_cite: ['worker'] } },
        judge_models: { judge: { provider: 'script' } },
        judge_script: { teacher: [{ json: { verdict: 'approved', evidence: ['worker#1'] } }] },
      },
      { id: 'out', kind: 'output', position: { x: 520, y: 0 }, fields: [{ name: 'report', type: 'text' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'task' }, to: { node: 'report', port: 'task' } },
      { from: { node: 'report', port: 'output' }, to: { node: 'out', port: 'report' } },
    ],
  });
}

test('a pattern member that asks a person parks the run in Waiting for you; the reply resumes the member and the run completes, the member’s run shown under its iteration', async () => {
  test.setTimeout(180_000);
  const api = await connectHost(host);
  await api.request('events.subscribe', {});
  await api.request('workflows.save', { workflow: askingMemberWorkflow() });
  const { run_id } = (await api.request('workflows.run', { id: 'asking-member', inputs: { task: 'Write the incident report.' } })) as { run_id: string };
  await waitFor(() => api.events.some((e) => e.run_id === run_id && e.type === 'intervention.requested'), 30_000, 'the member to ask');
  api.close();

  await page.goto(host.url);
  await page.evaluate(() => (window.location.hash = '#/interventions'));
  const row = page.getByTestId('interventions-view').getByTestId('intervention-row').filter({ hasText: 'Which outage is this about?' });
  await expect(row).toHaveAttribute('data-kind', 'ask_user', { timeout: 30_000 });
  // The row names the member whose question it is, not only the node.
  await expect(row).toHaveAttribute('data-member', 'worker');
  await expect(row).toContainText('node report › member worker asks');
  await row.getByTestId('intervention-answer-here').click();
  const reply = row.getByLabel('Your reply to the agent');
  await reply.fill('The Tuesday sync outage.');
  await shot(page, 'pattern-member-question');
  await reply.focus();
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('interventions-view').getByTestId('interventions-empty')).toBeVisible({ timeout: 30_000 });

  await page.evaluate((id) => (window.location.hash = `#/runs/${id}/nodes`), run_id);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  const node = page.locator('[data-testid="node-invocation"][data-node="report"]');
  await node.locator('.node-inv__toggle').click();
  const iteration = node.getByTestId('pattern-iteration');
  await expect(iteration).toHaveCount(1);
  await expect(iteration).toHaveAttribute('data-outcome', 'approved');
  await iteration.getByTestId('pattern-members-toggle').click();
  const member = iteration.getByTestId('pattern-member');
  await expect(member).toHaveAttribute('data-status', 'completed');
  await expect(member.getByTestId('pattern-member-output')).toHaveText('Report on the Tuesday sync outage.');
  await member.getByTestId('pattern-member-rounds-toggle').click();
  // The member's rounds: its question with the person's reply, then its answer.
  await expect(member.getByTestId('round-card')).toHaveCount(2);
  await expect(member.getByTestId('round-intervention').first()).toContainText('The Tuesday sync outage.');
  await member.scrollIntoViewIfNeeded();
  await shot(page, 'pattern-member-answered');
});
