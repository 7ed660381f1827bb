import { spawn } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { AgentSpec } from '@shared/contracts/spec';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { runAgent } from '../engine/run-agent';
import { createMemoryLedger } from './idempotency-ledger';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { startFloodingMcpServer, type FloodOptions, type FloodingMcpServer } from '../../test-support/flooding-mcp-server';
import { MAX_MCP_MESSAGE_BYTES } from './answer-bound';
import { McpAnswerTooLargeError } from './errors';
import { startToolHost, type McpToolHost } from './mcp-tool-host';

/**
 * Issue 27: a remote server's answer is not read whole before it is cut. A real Streamable HTTP
 * server on loopback streams an answer far past the bound; the call fails in words, the server
 * stops being read (it got to write little of the answer), and the next call on it succeeds.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = fileURLToPath(new URL('../../test-support/flood-client-child.ts', import.meta.url));
const MB = 1024 * 1024;

const servers: FloodingMcpServer[] = [];
const hosts: McpToolHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function flooding(options: FloodOptions): Promise<FloodingMcpServer> {
  const server = await startFloodingMcpServer(options);
  servers.push(server);
  return server;
}

async function host(url: string): Promise<McpToolHost> {
  const started = await startToolHost([{ id: 'remote', url, args: [] }], { vars: {}, overrides: {}, cwd: os.tmpdir(), startTimeoutMs: 10_000, callTimeoutMs: 20_000 });
  hosts.push(started);
  return started;
}

function call(h: McpToolHost, snapshot: ToolSnapshot, name: string, args: Record<string, unknown>) {
  const tool = snapshot.tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return h.execute({ decision: { decision_type: 'tool_call', tool_name: name, arguments: args }, tool, idempotency_key: `${name}-${'k'.repeat(60)}` });
}

describe("a remote MCP server's answer past the bound", () => {
  for (const as of ['sse', 'json'] as const) {
    it(`(${as}) fails the call in words, is read no further, and leaves the server usable`, async () => {
      const server = await flooding({ answerBytes: 40 * MB, as });
      const h = await host(server.url());
      const snapshot = await h.snapshot(0);
      const failure = await call(h, snapshot, 'flood', {}).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(McpAnswerTooLargeError);
      expect(failure).toMatchObject({ server: 'remote', serverExited: false, limit: MAX_MCP_MESSAGE_BYTES });
      expect((failure as Error).message).toBe(`MCP server "remote" sent an answer larger than 8 MiB when asked to run "flood"; Steward stopped reading it there (the call may have run)`);
      // The connection was closed there: the server got to write about the bound (plus what the sockets buffer), far from all of it.
      await expect.poll(() => server.floods.length).toBe(1);
      expect(server.floods[0]).toBeLessThan(MAX_MCP_MESSAGE_BYTES + 8 * MB);
      const echo = await call(h, snapshot, 'echo', { text: 'still there' });
      expect(echo).toMatchObject({ ok: true, is_error: false, content: 'echo: still there' });
      expect(h.status()[0]?.alive).toBe(true);
    });
  }

  it('(older HTTP+SSE) fails the call in words; that stream carried every answer, so the connection is closed', async () => {
    const server = await flooding({ answerBytes: 40 * MB, as: 'legacy-sse' });
    const h = await host(server.url());
    const snapshot = await h.snapshot(0);
    expect((await call(h, snapshot, 'echo', { text: 'before' })).content).toBe('echo: before');
    const failure = await call(h, snapshot, 'flood', {}).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(McpAnswerTooLargeError);
    expect(failure).toMatchObject({ server: 'remote', serverExited: true });
    expect((failure as Error).message).toBe(
      `MCP server "remote" (${server.url()}) sent a message larger than 8 MiB on its event stream; Steward stopped reading it and closed the connection; its tools are unavailable for the rest of this run`,
    );
    await expect.poll(() => server.floods.length).toBe(1);
    expect(server.floods[0]).toBeLessThan(MAX_MCP_MESSAGE_BYTES + 8 * MB);
    expect(h.status()[0]?.alive).toBe(false);
  });

  it('in a run, the boundary records the round as a failed tool call in those words, and the next round calls the same server', async () => {
    const server = await flooding({ answerBytes: 40 * MB, as: 'sse' });
    const ws = tempNotesWorkspace();
    const events: RunEvent[] = [];
    try {
      const result = await runAgent({
        spec: AgentSpec.parse({
          format: 'steward/v1',
          kind: 'agent',
          id: 'flooded',
          name: 'Flooded',
          instructions: 'Read.',
          task: 'Read the big answer.',
          servers: [{ id: 'remote', url: server.url() }],
          tool_effects: { 'remote/flood': { effect: 'read' }, 'remote/echo': { effect: 'read' } },
          supervision: { enabled: false },
        }),
        specDir: ws.dir,
        script: {
          latency_ms: 0,
          student: [
            { json: { decision_type: 'tool_call', tool_name: 'flood', arguments: {} } },
            { json: { decision_type: 'tool_call', tool_name: 'echo', arguments: { text: 'after' } } },
            { json: { decision_type: 'complete', output: 'done' } },
          ],
          teacher: [],
        },
        ledger: createMemoryLedger(),
        onEvent: (e) => events.push(e),
      });
      const rounds = events.flatMap((e) => (e.type === 'round.completed' ? [e.record] : []));
      expect(rounds[0]).toMatchObject({
        outcome: 'failed',
        reason: 'tool_error',
        message: 'the tool call failed: MCP server "remote" sent an answer larger than 8 MiB when asked to run "flood"; Steward stopped reading it there (the call may have run)',
      });
      expect(rounds[1]).toMatchObject({ outcome: 'executed', execution: { tool: 'echo', ok: true, content: 'echo: after' } });
      expect(result.status, result.message).toBe('completed');
    } finally {
      ws.cleanup();
    }
  });

  it('a 200 MB answer raises the client process’s memory by far less than its size', async () => {
    const server = await flooding({ answerBytes: 200 * MB, as: 'sse' });
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, server.url()], {
      cwd: ROOT,
      env: { ...process.env, TSX_TSCONFIG_PATH: `${ROOT}/tsconfig.test.json` },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise<void>((done) => child.once('exit', () => done()));
    const report = JSON.parse(out.trim()) as { flood: { ok: boolean; error?: string }; echo: { ok: boolean; content?: string }; rss_before_mb: number; growth_mb: number };
    expect(report.flood.error).toMatch(/^McpAnswerTooLargeError: MCP server "remote" sent an answer larger than 8 MiB/);
    expect(report.echo).toMatchObject({ ok: true, content: 'echo: still there' });
    expect(report.growth_mb, JSON.stringify(report)).toBeLessThan(100);
  }, 60_000);
});
