import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolCallDecision } from '@shared/contracts/decision';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { scriptServerHosts } from '../../test-support/script-server-host';
import { McpCallError } from './errors';
import { startToolHost, type McpToolHost } from './mcp-tool-host';
import type { ToolProgress } from './tool-host';

/** A real SDK-built stdio server (test-support/capabilities-mcp-server.mjs): ticking, wait_for_cancel… */
const start = scriptServerHosts('./capabilities-mcp-server.mjs', 'caps');
const require = createRequire(import.meta.url);
const everythingBin = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');

let dir: string;
let marker: string;
const hosts: McpToolHost[] = [];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-mcp-progress-'));
  marker = path.join(dir, 'cancelled.log');
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

function offered(snapshot: ToolSnapshot, name: string) {
  const tool = snapshot.tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no ${name} in ${snapshot.tools.map((t) => t.name).join(', ')}`);
  return tool;
}
const call = (name: string, args: Record<string, unknown> = {}): ToolCallDecision => ({ decision_type: 'tool_call', tool_name: name, arguments: args });

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting: ${what}`);
}
const cancellations = () => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '');

describe('progress and deadlines of a tool call (real servers)', () => {
  it('a call carries a progress token, and its progress reaches the host thinned out to one report per interval', async () => {
    const reports: ToolProgress[] = [];
    const host = await start([], {}, { onToolProgress: (p) => reports.push(p), progressThrottleMs: 350 });
    const tool = offered(await host.snapshot(0), 'ticking');
    const started = Date.now();
    const execution = await host.execute({ decision: call('ticking', { ticks: 8, every_ms: 100 }), tool, idempotency_key: 'k-tick' });
    const elapsed = Date.now() - started;
    expect(execution.content).toBe('ticked 8');
    expect(reports[0]).toEqual({ server: 'caps', tool: 'ticking', progress: 1, total: 8, message: 'step 1 of 8' });
    expect(reports.length).toBeGreaterThanOrEqual(2);
    // The first, one per interval of the time the call really took (a loaded machine stretches it), the last.
    expect(reports.length).toBeLessThanOrEqual(Math.min(7, 2 + Math.ceil(elapsed / 350)));
  });

  it("a call's own progress listener gets the first report, at most one per interval, and the last, all before the result", async () => {
    const hostWide: ToolProgress[] = [];
    const host = await start([], {}, { onToolProgress: (p) => hostWide.push(p), progressThrottleMs: 200 });
    const tool = offered(await host.snapshot(0), 'ticking');
    const reports: ToolProgress[] = [];
    const started = Date.now();
    const execution = await host.execute({ decision: call('ticking', { ticks: 30, every_ms: 10 }), tool, idempotency_key: 'k-own', onProgress: (p) => reports.push(p) });
    const elapsed = Date.now() - started;
    const afterResult = reports.length;
    await new Promise((r) => setTimeout(r, 400));
    expect(execution.content).toBe('ticked 30');
    expect(hostWide).toEqual([]);
    // 30 reports in ~300 ms: the first, one or two per 200 ms, and the last (30 of 30), not thirty.
    expect(reports[0]?.progress).toBe(1);
    // The last one the host received: the SDK may drop a report that arrives with the result itself.
    expect(reports.at(-1)?.progress).toBeGreaterThanOrEqual(28);
    expect(reports.at(-1)?.total).toBe(30);
    // At most one per 200 ms of the time the call really took, besides the first and the last.
    expect(reports.length).toBeLessThanOrEqual(2 + Math.ceil(elapsed / 200));
    expect(reports.length).toBeLessThan(30);
    expect(reports.length).toBe(afterResult);
  });

  it("a call's deadline restarts whenever the server reports progress", async () => {
    const host = await start([], { timeouts: { call_ms: 1_000 } });
    const tool = offered(await host.snapshot(0), 'ticking');
    // 8 ticks of 300 ms: 2.4 s in all, more than twice the deadline, never a second silent.
    const execution = await host.execute({ decision: call('ticking', { ticks: 8, every_ms: 300 }), tool, idempotency_key: 'k-long' });
    expect(execution.content).toBe('ticked 8');
  });

  it("a tool's own deadline in the spec wins over the server's, and a call past it is cancelled on the server", async () => {
    const host = await start(['--marker', marker], { timeouts: { call_ms: 60_000, tools: { wait_for_cancel: 400 } } });
    const tool = offered(await host.snapshot(0), 'wait_for_cancel');
    const error = await host.execute({ decision: call('wait_for_cancel', { ms: 20_000 }), tool, idempotency_key: 'k-slow' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpCallError);
    expect((error as Error).message).toMatch(/did not answer within 400 ms when asked to run "wait_for_cancel"/);
    await until(() => cancellations().includes('cancelled'), 'the server to see the cancellation');
  });

  it('server-everything reports the progress of its long-running operation, every step', async () => {
    const reports: ToolProgress[] = [];
    const host = await startToolHost([{ id: 'everything', command: process.execPath, args: [everythingBin] }], {
      vars: {},
      overrides: {},
      cwd: process.cwd(),
      startTimeoutMs: 60_000,
      onToolProgress: (p) => reports.push(p),
      progressThrottleMs: 0,
    });
    hosts.push(host);
    const tool = offered(await host.snapshot(0), 'trigger-long-running-operation');
    const execution = await host.execute({ decision: call('trigger-long-running-operation', { duration: 1, steps: 4 }), tool, idempotency_key: 'k-everything' });
    expect(execution.content).toMatch(/Long running operation completed/);
    // The last report may come with the result, when the SDK no longer listens for it.
    expect(reports.map((r) => `${r.progress}/${r.total}`).slice(0, 3)).toEqual(['1/4', '2/4', '3/4']);
  });
});

describe('cancelling a call (real server)', () => {
  it('aborting the signal sends notifications/cancelled, which the server observes, and the call fails as aborted', async () => {
    const host = await start(['--marker', marker]);
    const tool = offered(await host.snapshot(0), 'wait_for_cancel');
    const abort = new AbortController();
    const running = host.execute({ decision: call('wait_for_cancel'), tool, idempotency_key: 'k-cancel', signal: abort.signal }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 500));
    abort.abort(new Error('the run was cancelled'));
    const error = await running;
    expect(error).toBeInstanceOf(McpCallError);
    expect((error as Error).message).toMatch(/aborted while asked to run "wait_for_cancel"/);
    await until(() => cancellations().includes('cancelled'), 'the server to see the cancellation');
    expect(cancellations()).toMatch(/^cancelled \d+ .*the run was cancelled/m);
  });
});

describe('progress as a live notice', () => {
  it('without a progress listener, a call’s progress goes out as notice lines (the run view and the CLI show them)', async () => {
    const lines: string[] = [];
    const host = await start([], {}, { onProgress: (line) => lines.push(line), progressThrottleMs: 0 });
    const tool = offered(await host.snapshot(0), 'ticking');
    await host.execute({ decision: call('ticking', { ticks: 3, every_ms: 50 }), tool, idempotency_key: 'k-lines' });
    expect(lines).toContain('[mcp caps] ticking: 1 of 3 (33%) — step 1 of 3');
  });
});
