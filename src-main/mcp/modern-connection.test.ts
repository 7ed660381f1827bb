import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerSpec } from '@shared/contracts/spec';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { LOCAL_ONLY } from '@shared/policy/privacy';
import { startRemoteMcpServer } from '../../test-support/remote-mcp-server';
import { everythingBin } from '../../test-support/slow-tool-workflow';
import type { ElicitationAsk, ElicitationReply } from './client-capabilities';
import { answerWithDefaults } from './elicitation-defaults';
import { startToolHost, type McpToolHost, type ToolHostOptions } from './mcp-tool-host';
import { ModernConnection } from './modern-connection';
import { startModernLoopbackServer } from './modern-loopback-server';
import { allowedRemoteEndpoint } from './remote-endpoint';

/**
 * Issue 30: MCP 2026-07-28 beside the 2025 revisions. A real 2026-07-28 server (SDK v2 server
 * package, modern-loopback-server.ts) asks for input in the middle of a tool call; the run's
 * elicitation answers (a person, or the form's defaults where nobody can be asked) and the retried
 * call carries the answer and the server's requestState. Older servers (the test server of today's
 * remote tests, the shipped server-everything over Streamable HTTP) still connect the 2025 way.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function host(spec: McpServerSpec, options: Partial<ToolHostOptions> = {}): Promise<McpToolHost> {
  const started = await startToolHost([spec], { vars: {}, overrides: {}, cwd: os.tmpdir(), startTimeoutMs: 10_000, callTimeoutMs: 10_000, ...options });
  cleanups.push(() => started.close());
  return started;
}

async function modernServer(legacy?: 'stateless' | 'reject') {
  const server = await startModernLoopbackServer(legacy);
  cleanups.push(() => server.close());
  return server;
}

function offered(snapshot: ToolSnapshot, name: string) {
  const tool = snapshot.tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
}

async function call(h: McpToolHost, tool: string, args: Record<string, unknown>) {
  const snapshot = await h.snapshot(0);
  return h.execute({ decision: { decision_type: 'tool_call', tool_name: tool, arguments: args }, tool: offered(snapshot, tool), idempotency_key: 'k'.repeat(64) });
}

describe('a remote server on MCP 2026-07-28', () => {
  it('is reached on 2026-07-28; its input request mid-call is put to the person, and the retried call carries the answer and its requestState', async () => {
    const server = await modernServer('reject');
    const asked: ElicitationAsk[] = [];
    const person = async (ask: ElicitationAsk): Promise<ElicitationReply> => {
      asked.push(ask);
      return { action: 'accept', content: { who: 'Ada', nights: 2 } };
    };
    const h = await host({ id: 'hotel', url: server.url, args: [] }, { onElicit: person });
    expect(h.status()[0]).toMatchObject({ id: 'hotel', alive: true, server_name: 'modern-loopback', protocol_version: '2026-07-28', url: server.url });
    const result = await call(h, 'book_room', { room: 'blue' });
    expect(result).toMatchObject({ server: 'hotel', tool: 'book_room', ok: true, is_error: false, content: 'booked blue for Ada (2 nights)' });
    expect(asked).toEqual([
      {
        server: 'hotel',
        mode: 'form',
        message: 'Who is room blue for?',
        fields: [expect.objectContaining({ name: 'who', required: true, default: 'a guest' }), expect.objectContaining({ name: 'nights', required: false, default: 1 })],
      },
    ]);
    // Two requests on the wire for one call: the first asked, the retry brought the answer and the state back untouched.
    expect(server.calls).toEqual([{ tool: 'book_room' }, { tool: 'book_room', requestState: 'booking-blue-1', answered: 'accept' }]);
  });

  it('a person who declines: the server hears it and the call ends as the tool reports it, without a retry loop', async () => {
    const server = await modernServer();
    const h = await host({ id: 'hotel', url: server.url, args: [] }, { onElicit: async () => ({ action: 'decline' }) });
    const result = await call(h, 'book_room', { room: 'red' });
    expect(result).toMatchObject({ ok: true, is_error: true, content: 'not booked: the person answered decline' });
    expect(server.calls.map((c) => c.answered)).toEqual([undefined, 'decline']);
  });

  it('where nobody can be asked, the form is answered with its defaults (SEP-1034)', async () => {
    const server = await modernServer();
    const h = await host({ id: 'hotel', url: server.url, args: [] }, { onElicit: answerWithDefaults });
    expect((await call(h, 'book_room', { room: 'green' })).content).toBe('booked green for a guest (1 night)');
  });

  it('without anyone to ask, Steward does not declare elicitation; a plain call carries traceparent in _meta', async () => {
    const server = await modernServer();
    const endpoint = allowedRemoteEndpoint('hotel', server.url, LOCAL_ONLY);
    if (!endpoint.ok) throw new Error(endpoint.message);
    const attempt = await ModernConnection.connect('hotel', endpoint.endpoint, {}, { startTimeoutMs: 10_000, callTimeoutMs: 10_000 });
    if (attempt.kind !== 'modern') throw new Error(`not modern: ${attempt.why}`);
    cleanups.push(() => attempt.conn.close());
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const echoed = await attempt.conn.callTool('echo', { text: 'hi' }, { traceparent });
    expect(echoed).toEqual({ kind: 'result', result: expect.objectContaining({ content: [{ type: 'text', text: 'echo: hi' }] }) });
    expect(server.calls).toEqual([{ tool: 'echo', traceparent }]);
    // The capabilities in each request's _meta declare no elicitation: the server knows not to ask, and says so.
    const booked = await attempt.conn.callTool('book_room', { room: 'blue' });
    expect(booked).toEqual({ kind: 'protocol_error', message: expect.stringContaining('client capabilities do not declare the required capability') });
    expect(server.calls.map((c) => c.tool)).toEqual(['echo', 'book_room']);
  });
});

describe('older servers through the same negotiation', () => {
  it("today's 2025-era test server over Streamable HTTP refuses server/discover and is reached with the 2025 handshake", async () => {
    const server = await startRemoteMcpServer('streamable');
    cleanups.push(() => server.close());
    const log: string[] = [];
    const h = await host({ id: 'old', url: server.url(), args: [] }, { onLog: (line) => log.push(line) });
    expect(h.status()[0]).toMatchObject({ id: 'old', alive: true, server_name: 'remote-test-server', protocol_version: '2025-11-25' });
    expect((await call(h, 'echo', { text: 'unchanged' })).content).toBe('echo: unchanged');
    expect(log.join('\n')).toContain('does not offer MCP 2026-07-28');
  });

  it('the shipped server-everything over Streamable HTTP still works, on 2025-11-25', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [everythingBin, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
    cleanups.push(() => stop(child));
    await listening(child);
    const h = await host({ id: 'everything', url: `http://127.0.0.1:${port}/mcp`, args: [] });
    expect(h.status()[0]).toMatchObject({ id: 'everything', alive: true, protocol_version: '2025-11-25' });
    expect((await call(h, 'echo', { message: 'still here' })).content).toContain('still here');
  }, 30_000);
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** server-everything says it is listening on stderr. */
function listening(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let said = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${said}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
