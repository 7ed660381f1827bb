import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { HostedWorkflow } from '../src-shared/contracts/hosted-workflow';
import { startModernLoopbackServer, type ModernLoopbackServer } from '../src-main/mcp/modern-loopback-server';
import { ensureBuilt } from '../test-support/ensure-built';
import { connectHost, type HostProcess } from '../test-support/host-process';
import { collector } from '../test-support/otlp-collector';
import { shot, terminalCode } from './helpers';
import { startHostOnPort } from './host-on-port';

/**
 * Issue 30's proof: a server on MCP 2026-07-28 (a real SDK v2 server on loopback, in this test's
 * process so it outlives the host) asks for input in the middle of a tool call; the question waits
 * in "Waiting for you"; the host stops and starts again (another port, so another origin: the page
 * holds nothing of it); the person answers there, and the call completes with their answer. The
 * server exports its own spans to an OTLP collector, and so does the app ("Send to OTLP endpoint"):
 * in the collector the server's spans are in the run's trace, under the run's `tools/call` span.
 * The agent is scripted (the model boundary's test double).
 */

type Api = Awaited<ReturnType<typeof connectHost>>;
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}
interface OtlpBody {
  resourceSpans: Array<{ resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
}

let dataDir: string;
let server: ModernLoopbackServer;
let otlp: Awaited<ReturnType<typeof collector>>;
const hosts: HostProcess[] = [];

test.beforeAll(async () => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-mcp-input-'));
  otlp = await collector();
  server = await startModernLoopbackServer('reject', { otlp: otlp.url });
});

test.afterAll(async () => {
  for (const host of hosts) await host.stop();
  await server?.close();
  await new Promise<void>((resolve) => otlp?.server.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
});

async function hostOn(): Promise<HostProcess> {
  const host = await startHostOnPort(dataDir, 0);
  hosts.push(host);
  return host;
}

/** An explicit action through the host API, approved with the code the host printed, as a person at its terminal would. */
async function confirmed(host: HostProcess, api: Api, start: () => Promise<unknown>): Promise<void> {
  const printed = host.stderr?.().length ?? 0;
  const result = (await start()) as { status: string; confirmation_id?: string };
  if (result.status === 'done') return;
  expect(result.status).toBe('needs_confirmation');
  const code = await terminalCode(() => host.stderr?.() ?? '', printed);
  expect(await api.request('actions.confirm', { confirmation_id: result.confirmation_id ?? '', code })).toMatchObject({ status: 'done' });
}

/** A scripted agent that books room blue on the registered hotel server, then completes; the teacher accepts the write. */
const booking = HostedWorkflow.parse({
  format: 'steward/v1',
  kind: 'agent',
  id: 'book-a-room',
  name: 'Book a room',
  instructions: 'Book the room the task names.',
  task: 'Book room blue.',
  servers: [{ id: 'hotel', server: 'hotel', tools: ['book_room'] }],
  supervision: { phase: 3 },
  script: {
    latency_ms: 0,
    student: [{ json: { decision_type: 'tool_call', tool_name: 'book_room', arguments: { room: 'blue' } } }, { json: { decision_type: 'complete', output: 'Room blue is booked.' } }],
    teacher: [{ json: { verdict: 'accept', reason_codes: [], explanation: 'Booking the room the task names.' } }, { json: { verdict: 'accept', reason_codes: [], explanation: 'Done.' } }],
  },
});

async function openRun(page: Page, host: HostProcess, runId: string): Promise<void> {
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible({ timeout: 30_000 });
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), runId);
}

test('a 2026-07-28 server asks for input mid-call; the person answers in the app after a host restart; the call completes, and the server’s spans are under the run’s trace in the OTLP export', async ({ browser }) => {
  test.setTimeout(120_000);
  const first = await hostOn();
  const api = await connectHost(first);
  await confirmed(first, api, () => api.request('servers.register', { server: { id: 'hotel', label: 'Hotel (MCP 2026-07-28)', url: server.url }, replace: false }));
  await confirmed(first, api, () => api.request('effects.set', { server: 'hotel', tool: 'book_room', effect: { effect: 'reversible_write' } }));
  const { run_id } = (await api.request('run.start', { workflow: booking, overrides: {} })) as { run_id: string };
  api.close();

  const page = await (await browser.newContext()).newPage();
  await openRun(page, first, run_id);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'waiting', { timeout: 60_000 });
  expect(server.calls).toHaveLength(1);

  // The host goes away and comes back on another port: nothing of the run is in the new origin's page.
  await first.stop();
  const second = await hostOn();
  expect(second.port).not.toBe(first.port);
  await page.goto(second.url);
  await page.evaluate(() => (window.location.hash = '#/interventions'));
  await expect(page.getByTestId('interventions-view')).toContainText('hotel/book_room asks you: Who is room blue for?', { timeout: 30_000 });
  await page.getByTestId('intervention-answer-here').click();
  const card = page.getByTestId('interventions-view').getByTestId('intervention-card');
  await expect(card).toHaveAttribute('data-kind', 'server_input', { timeout: 30_000 });
  await expect(card.getByTestId('server-input-message')).toHaveText('Who is room blue for?');
  await expect(card.getByTestId('ask-field-nights')).toHaveValue('1');
  await card.getByTestId('ask-field-who').fill('');
  await card.getByTestId('intervention-approve').click();
  // A required field left empty is said at the field; nothing is sent.
  await expect(card.locator('.form-row__issue')).toBeVisible();
  expect(server.calls).toHaveLength(1);
  await card.getByTestId('ask-field-who').fill('Ada');
  await card.getByTestId('ask-field-nights').fill('2');
  await shot(page, 'mcp-input-after-restart');
  await card.getByTestId('intervention-approve').click();

  await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), run_id);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  expect(server.calls.map((c) => ({ requestState: c.requestState, answered: c.answered }))).toEqual([
    { requestState: undefined, answered: undefined },
    { requestState: 'booking-blue-1', answered: 'accept' },
  ]);

  // The run to the collector the server exports to.
  const before = otlp.received.length;
  await page.getByTestId('send-otlp').click();
  await page.getByTestId('otlp-endpoint').fill(otlp.url);
  await page.getByTestId('otlp-send-submit').click();
  await expect(page.getByTestId('otlp-send-outcome')).toContainText(/^Sent \d+ spans to http:\/\/127\.0\.0\.1:\d+\/v1\/traces\.$/, { timeout: 30_000 });
  await shot(page, 'mcp-input-completed');
  const bodies = otlp.received.map((r) => JSON.parse(r.body) as OtlpBody);
  const fromSteward = bodies.slice(before).flatMap((b) => b.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
  const fromServer = bodies
    .flatMap((b) => b.resourceSpans)
    .filter((r) => r.resource?.attributes?.some((a) => a.key === 'service.name' && a.value.stringValue === 'modern-loopback'))
    .flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
  const call = fromSteward.find((s) => s.name === 'tools/call book_room');
  expect(call).toBeDefined();
  // The server's two spans (the call that asked, and its continuation with the answer): in the run's trace, children of the run's tools/call span.
  expect(fromServer.map((s) => ({ name: s.name, traceId: s.traceId, parentSpanId: s.parentSpanId }))).toEqual([
    { name: 'tools/call book_room', traceId: call?.traceId, parentSpanId: call?.spanId },
    { name: 'tools/call book_room', traceId: call?.traceId, parentSpanId: call?.spanId },
  ]);
  expect(fromSteward.every((s) => s.traceId === call?.traceId)).toBe(true);
});
