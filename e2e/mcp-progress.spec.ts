import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';
import { ensureBuilt } from '../test-support/ensure-built';
import { connectHost, startHostProcess, type HostProcess } from '../test-support/host-process';
import { shot } from './helpers';

/**
 * A slow MCP tool reports progress (issue 13): the shipped server-everything's long-running
 * operation, called by a scripted agent (the model boundary's test double), shows its progress live
 * in the run view while it runs.
 */

let host: HostProcess;
let dataDir: string;
let page: Page;

test.beforeAll(async ({ browser }) => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-progress-'));
  host = await startHostProcess(dataDir);
  page = await browser.newPage();
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** input → an agent (scripted) that calls the long-running operation once, then completes → output. */
const slowTool = HostedWorkflowGraph.parse({
  format: 'steward/v1',
  kind: 'workflow',
  id: 'slow-tool',
  name: 'Slow tool',
  servers: [{ id: 'ev', server: 'everything', tools: ['trigger-long-running-operation'] }],
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'name', type: 'text', required: false, default: 'x' }] },
    {
      id: 'runner',
      kind: 'agent',
      instructions: 'Run the long operation.',
      task: 'Run the long operation for {{name}}, then say done.',
      inputs: [{ name: 'name', type: 'text' }],
      servers: ['ev'],
      script: {
        latency_ms: 0,
        student: [
          { json: { decision_type: 'tool_call', tool_name: 'trigger-long-running-operation', arguments: { duration: 12, steps: 12 } } },
          { json: { decision_type: 'complete', output: 'done' } },
        ],
        teacher: [],
      },
    },
    { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
  ],
  edges: [
    { from: { node: 'in', port: 'name' }, to: { node: 'runner', port: 'name' } },
    { from: { node: 'runner', port: 'output' }, to: { node: 'out', port: 'said' } },
  ],
});

test('a slow tool’s progress shows live in the run view while it runs', async () => {
  test.setTimeout(120_000);
  const api = await connectHost(host);
  await api.request('workflows.save', { workflow: slowTool });
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible({ timeout: 30_000 });
  const { run_id } = (await api.request('workflows.run', { id: 'slow-tool', inputs: { name: 'x' } })) as { run_id: string };
  api.close();
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), run_id);
  const notice = page.getByTestId('run-notice');
  await expect(notice).toContainText(/trigger-long-running-operation: \d+ of 12 \(\d+%\)/, { timeout: 40_000 });
  await shot(page, 'mcp-progress-live');
  // It moves on while the call runs.
  const first = (await notice.textContent()) ?? '';
  await expect(notice).not.toHaveText(first, { timeout: 10_000 });
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
});
