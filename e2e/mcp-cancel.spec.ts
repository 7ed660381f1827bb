import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { oneCallWorkflow } from '../test-support/elicitation-workflow';
import { ensureBuilt } from '../test-support/ensure-built';
import { connectHost, type HostProcess } from '../test-support/host-process';
import { shot, terminalCode } from './helpers';
import { startHostOnPort } from './host-on-port';

/**
 * Issue 13's proof: "a cancelled run cancels its call on the server". A person's own MCP server (a
 * real SDK-built stdio server, registered and confirmed at the host's terminal) holds a call open
 * until it is cancelled and notes what it receives; the person cancels the run in the app, and the
 * server is sent notifications/cancelled for the call in flight. The agent is scripted (the model
 * boundary's test double).
 */

const SERVER_SCRIPT = fileURLToPath(new URL('../test-support/capabilities-mcp-server.mjs', import.meta.url));

let host: HostProcess;
let dataDir: string;
let marker: string;
let page: Page;

test.beforeAll(async ({ browser }) => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-cancel-'));
  marker = join(dataDir, 'server-calls.log');
  host = await startHostOnPort(dataDir, 0);
  page = await browser.newPage();
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const serverLog = (): string => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

/** An explicit action through the host API, approved with the code the host printed, as a person at its terminal would. */
async function confirmed(api: Awaited<ReturnType<typeof connectHost>>, start: () => Promise<unknown>): Promise<void> {
  const printed = host.stderr?.().length ?? 0;
  const result = (await start()) as { status: string; confirmation_id?: string };
  if (result.status === 'done') return;
  expect(result.status).toBe('needs_confirmation');
  const code = await terminalCode(() => host.stderr?.() ?? '', printed);
  expect(await api.request('actions.confirm', { confirmation_id: result.confirmation_id ?? '', code })).toMatchObject({ status: 'done' });
}

/** input → an agent (scripted) whose one call waits until it is cancelled → output. */
const waitsForCancel = oneCallWorkflow('waits-for-cancel', 'Waits for cancel', { server: { id: 'caps', server: 'caps' }, tool: 'wait_for_cancel', arguments: { ms: 120_000 } });

test('cancelling a run in the app sends its MCP server notifications/cancelled for the call in flight, and the run ends cancelled', async () => {
  test.setTimeout(120_000);
  const api = await connectHost(host);
  await confirmed(api, () => api.request('servers.register', { server: { id: 'caps', label: 'Capabilities', command: process.execPath, args: [SERVER_SCRIPT, '--marker', marker], env: {} }, replace: false }));
  // The person says the tool only reads, so the call runs unreviewed: this test is about the call in flight.
  await confirmed(api, () => api.request('effects.set', { server: 'caps', tool: 'wait_for_cancel', effect: { effect: 'read' } }));
  await api.request('workflows.save', { workflow: waitsForCancel });
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible({ timeout: 30_000 });
  const { run_id } = (await api.request('workflows.run', { id: 'waits-for-cancel', inputs: { name: 'x' } })) as { run_id: string };
  api.close();
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), run_id);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'running', { timeout: 30_000 });
  // The server has the call in hand.
  await expect.poll(serverLog, { timeout: 40_000 }).toMatch(/^started \S+\n/);
  expect(serverLog()).not.toContain('cancelled');

  // Cancel run, confirmed.
  await page.getByTestId('cancel-button').click();
  await page.getByTestId('confirm-cancel-button').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'cancelled', { timeout: 30_000 });
  // The server was told: the same request id it started, cancelled (not left to run its two minutes).
  await expect.poll(serverLog, { timeout: 20_000 }).toMatch(/^started (\S+)\ncancelled \1 /);
  await shot(page, 'mcp-cancelled-run');
});
