import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { connectHost, startHostProcess, waitFor, type HostProcess } from '../test-support/host-process';
import { SCRIPTED_JUDGE_CARD, startScriptedA2aJudge, type JudgmentRequestData, type ScriptedA2aJudge } from '../test-support/scripted-a2a-judge';
import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';
import { shot } from './helpers';

// Real host, renderer and IndexedDB; the judge is a real A2A server (@a2a-js/sdk) on loopback
// whose agent is a scripted judge (the double at the model boundary); the member is a replay script.

let judge: ScriptedA2aJudge;
let host: HostProcess;
let dataDir: string;
let page: Page;

test.beforeAll(async ({ browser }) => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-a2a-judge-'));
  const cite = (d: JudgmentRequestData) => d.outputs.map((o) => o.id);
  judge = await startScriptedA2aJudge([(d) => ({ data: { verdict: 'rejected', feedback: 'Add the risks.', evidence: cite(d) } }), (d) => ({ data: { verdict: 'approved', evidence: cite(d) } })]);
  host = await startHostProcess(dataDir, {});
  page = await browser.newPage();
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  await judge?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function a2aJudgedWorkflow(url: string): HostedWorkflowGraph {
  const complete = (output: string) => ({ json: { decision_type: 'complete', output } });
  return HostedWorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'a2a-judged',
    name: 'A2A judged',
    nodes: [
      { id: 'in', kind: 'input', position: { x: 0, y: 0 }, fields: [{ name: 'topic', type: 'text' }] },
      {
        id: 'note',
        kind: 'pattern',
        position: { x: 260, y: 0 },
        type: 'SUPERVISOR',
        task: 'Write a short design note about {{topic}}.',
        inputs: [{ name: 'topic', type: 'text' }],
        members: [{ id: 'draft', role: 'writer', instructions: 'Write the note.', script: { student: [complete('Cache reads.'), complete('Cache reads. Risks: stale data.')] } }],
        max_iterations: 3,
        judgment: { mode: 'post_step', callers: [{ kind: 'a2a', url }], verifier: { must_cite: ['draft'] } },
      },
      { id: 'out', kind: 'output', position: { x: 520, y: 0 }, fields: [{ name: 'note', type: 'text' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'topic' }, to: { node: 'note', port: 'topic' } },
      { from: { node: 'note', port: 'output' }, to: { node: 'out', port: 'note' } },
    ],
  });
}

test('an A2A judge: the run view names each judgment by its agent card, and the editor checks the card', async () => {
  test.setTimeout(120_000);
  const api = await connectHost(host);
  await api.request('events.subscribe', {});
  await api.request('workflows.save', { workflow: a2aJudgedWorkflow(judge.url) });
  const { run_id } = (await api.request('workflows.run', { id: 'a2a-judged', inputs: { topic: 'caching' } })) as { run_id: string };
  await waitFor(() => api.events.some((e) => e.type === 'run.finished' && e.run_id === run_id), 30_000, 'the run to finish');
  api.close();

  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible({ timeout: 30_000 });
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}/nodes`), run_id);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  const node = page.locator('[data-testid="node-invocation"][data-node="note"]');
  await node.locator('.node-inv__toggle').click();
  const judgments = node.getByTestId('pattern-judgment');
  await expect(judgments).toHaveCount(2);
  await expect(judgments.nth(0)).toHaveAttribute('data-caller', 'a2a');
  await expect(judgments.nth(0)).toContainText(`A2A agent “${SCRIPTED_JUDGE_CARD.name}” ${SCRIPTED_JUDGE_CARD.version} at ${judge.url}`);
  await expect(judgments.nth(0).getByTestId('pattern-judgment-feedback')).toContainText('Add the risks.');
  await expect(judgments.nth(1)).toHaveAttribute('data-verdict', 'approved');
  await node.scrollIntoViewIfNeeded();
  await shot(page, 'a2a-judge-timeline');

  // The privacy log: each judgment sent to the agent, by its card and host, sizes and field names — never the text.
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}/privacy`), run_id);
  const sent = page.getByTestId('privacy-a2a-call');
  await expect(sent).toHaveCount(2);
  await expect(sent.nth(0)).toHaveAttribute('data-outcome', 'answered');
  await expect(sent.nth(0)).toContainText(`the A2A agent “${SCRIPTED_JUDGE_CARD.name}” ${SCRIPTED_JUDGE_CARD.version} at ${new URL(judge.url).host} (this machine)`);
  await expect(sent.nth(0)).toContainText('masked before it left; not logged');
  await expect(page.getByTestId('privacy-a2a')).not.toContainText('Cache reads');
  await page.getByTestId('privacy-a2a').scrollIntoViewIfNeeded();
  await shot(page, 'a2a-judge-privacy');

  // The editor: the judge's settings, and its agent card read by the host under the privacy policy.
  await page.evaluate(() => (window.location.hash = '#/workflows/a2a-judged/edit'));
  await page.locator('.react-flow__controls-fitview').click();
  await page.getByTestId('node-note').click();
  const inspector = page.getByTestId('inspector');
  const caller = inspector.getByTestId('inspector-judgment-caller');
  await expect(caller).toHaveAttribute('data-caller-kind', 'a2a');
  await expect(caller.getByTestId('inspector-caller-a2a-url')).toHaveValue(judge.url);
  await caller.getByTestId('inspector-agent-card-check').click();
  await expect(caller.getByTestId('inspector-agent-card-name')).toHaveText(SCRIPTED_JUDGE_CARD.name);
  await expect(caller.getByTestId('inspector-agent-card-found')).toContainText('Review a draft: Approves or rejects with feedback');
  await caller.scrollIntoViewIfNeeded();
  await shot(page, 'a2a-judge-editor-card');

  // An address on a host the policy does not allow: refused in words, and the server sees nothing.
  const before = judge.requests.length;
  await caller.getByTestId('inspector-caller-a2a-url').fill(`http://0.0.0.0:${judge.port}`);
  await caller.getByTestId('inspector-agent-card-check').click();
  await expect(caller.getByTestId('inspector-agent-card-problem')).toContainText('which the workspace privacy policy does not allow');
  expect(judge.requests.length).toBe(before);
});
