import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerSpec } from '@shared/contracts/spec';
import type { McpCalled } from '@shared/contracts/server-call';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { LOCAL_ONLY } from '@shared/policy/privacy';
import { MASK } from '@shared/util/mask';
import { nonLoopbackAddress, startRemoteMcpServer, type RemoteMcpServer } from '../../test-support/remote-mcp-server';
import { McpCallError, McpStartError } from './errors';
import { startToolHost, type McpToolHost, type ToolHostOptions } from './mcp-tool-host';
import { allowedRemoteEndpoint } from './remote-endpoint';

const servers: RemoteMcpServer[] = [];
const hosts: McpToolHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function remote(transport: 'streamable' | 'sse'): Promise<RemoteMcpServer> {
  const server = await startRemoteMcpServer(transport);
  servers.push(server);
  return server;
}

async function host(spec: McpServerSpec, options: Partial<ToolHostOptions> = {}): Promise<McpToolHost> {
  const started = await startToolHost([spec], { vars: {}, overrides: {}, cwd: os.tmpdir(), startTimeoutMs: 10_000, callTimeoutMs: 10_000, ...options });
  hosts.push(started);
  return started;
}

function offered(snapshot: ToolSnapshot, name: string) {
  const tool = snapshot.tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
}

async function echo(h: McpToolHost, text: string) {
  const snapshot = await h.snapshot(0);
  return h.execute({ decision: { decision_type: 'tool_call', tool_name: 'echo', arguments: { text } }, tool: offered(snapshot, 'echo'), idempotency_key: 'k'.repeat(64) });
}

describe('a remote MCP server (url)', () => {
  it('is listed and called over Streamable HTTP, and each call is in the privacy log by argument name and size only', async () => {
    const server = await remote('streamable');
    const sent: McpCalled[] = [];
    const h = await host({ id: 'remote', url: server.url(), args: [] }, { onSent: (call) => sent.push(call) });
    expect((await h.snapshot(0)).tools.map((t) => t.name).sort()).toEqual(['die', 'echo']);
    const result = await echo(h, 'a value the ledger never holds');
    expect(result).toMatchObject({ server: 'remote', tool: 'echo', is_error: false, content: 'echo: a value the ledger never holds' });
    expect(sent).toEqual([{ server: 'remote', tool: 'echo', host: `127.0.0.1:${server.port}`, local: true, arguments: { text: MASK }, bytes: expect.any(Number) }]);
    expect(sent[0]?.bytes).toBe(Buffer.byteLength(JSON.stringify({ name: 'echo', arguments: { text: 'a value the ledger never holds' } })));
    expect(JSON.stringify(sent)).not.toContain('never holds');
    expect(h.status()[0]).toMatchObject({ id: 'remote', pid: null, alive: true, server_name: 'remote-test-server', url: server.url() });
    expect(server.requests.every((r) => r.path === '/mcp')).toBe(true);
  });

  it('an older HTTP+SSE-only server is reached through the fallback after its 4xx to Streamable HTTP', async () => {
    const server = await remote('sse');
    const log: string[] = [];
    const h = await host({ id: 'old', url: server.url(), args: [] }, { onLog: (line) => log.push(line) });
    expect((await echo(h, 'over sse')).content).toBe('echo: over sse');
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/sse' });
    expect(server.requests.some((r) => r.method === 'GET' && r.path === '/sse')).toBe(true);
    expect(log.join('\n')).toMatch(/answered HTTP 405 to Streamable HTTP; trying HTTP\+SSE/);
  });

  it('a host the privacy policy does not allow is refused before any request reaches it', async () => {
    const ip = nonLoopbackAddress();
    if (ip === undefined) return expect.soft(ip, 'this machine has no non-loopback address: not exercised').toBeUndefined();
    const server = await remote('streamable');
    const refused = await host({ id: 'far', url: server.url(ip), args: [] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpStartError);
    expect((refused as Error).message).toMatch(new RegExp(`would send this run's data to ${ip.replace(/\./g, '\\.')}:${server.port}, which the workspace privacy policy does not allow`));
    expect(server.requests).toEqual([]);
    // The same address, allowed: the server was there all along.
    const allowed = await host({ id: 'far', url: server.url(ip), args: [] }, { privacy: { allowed_hosts: [`${ip}:${server.port}`] } });
    expect((await echo(allowed, 'allowed')).content).toBe('echo: allowed');
  });

  it('tricky addresses are read once: userinfo is refused, [::1] is local, localhost.<domain> is not', async () => {
    const server = await remote('streamable');
    const userinfo = await host({ id: 'r', url: `http://127.0.0.1@evil.example:${server.port}/mcp`, args: [] }).catch((e: unknown) => e);
    expect((userinfo as Error).message).toMatch(/invalid server spec: url: the server's url must not carry a user name or password/);
    const lookalike = await host({ id: 'r', url: `http://localhost.evil.example:${server.port}/mcp`, args: [] }).catch((e: unknown) => e);
    expect((lookalike as Error).message).toMatch(/localhost\.evil\.example:\d+, which the workspace privacy policy does not allow/);
    expect(server.requests).toEqual([]);
    const v6 = await host({ id: 'r', url: server.url('[::1]'), args: [] });
    expect((await echo(v6, 'v6')).content).toBe('echo: v6');
  });

  it('the endpoint the check decides on is the URL object the transport connects to', () => {
    const cases: [string, boolean | 'refused'][] = [
      ['http://127.0.0.1@evil.example/', 'refused'],
      ['http://[::1]:8080/mcp', true],
      ['http://LOCALHOST:8080/mcp', true],
      ['http://127.1/mcp', 'refused'],
      ['http://2130706433/mcp', 'refused'],
      ['http://localhost.evil.example/mcp', false],
      ['http://127.0.0.1.evil.example/mcp', false],
      ['https://mcp.example.com/mcp', false],
    ];
    for (const [url, local] of cases) {
      const result = allowedRemoteEndpoint('r', url, { allowed_hosts: ['mcp.example.com', 'localhost.evil.example', '127.0.0.1.evil.example'] });
      if (local === 'refused') expect(result.ok, url).toBe(false);
      else expect(result.ok && result.endpoint.local, url).toBe(local);
    }
    const ok = allowedRemoteEndpoint('r', 'http://[::1]:8080/mcp', LOCAL_ONLY);
    expect(ok.ok && ok.endpoint.url instanceof URL && ok.endpoint.url.hostname).toBe('[::1]');
  });

  it('a server that dies mid-call fails the call as a lost connection, typed, without waiting out the timeout', async () => {
    const server = await remote('streamable');
    const h = await host({ id: 'remote', url: server.url(), args: [] }, { callTimeoutMs: 30_000 });
    const snapshot = await h.snapshot(0);
    const started = Date.now();
    const failure = await h
      .execute({ decision: { decision_type: 'tool_call', tool_name: 'die', arguments: {} }, tool: offered(snapshot, 'die'), idempotency_key: 'd'.repeat(64) })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(McpCallError);
    expect(failure).toMatchObject({ server: 'remote', serverExited: true, message: expect.stringMatching(/the connection to MCP server "remote" \(http:\/\/127\.0\.0\.1:\d+\/mcp\) was lost/) });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(h.status()[0]?.alive).toBe(false);
  });

  it('an HTTP+SSE server that dies mid-call fails the call the same way', async () => {
    const server = await remote('sse');
    const h = await host({ id: 'old', url: server.url(), args: [] }, { callTimeoutMs: 30_000 });
    const snapshot = await h.snapshot(0);
    const started = Date.now();
    const failure = await h
      .execute({ decision: { decision_type: 'tool_call', tool_name: 'die', arguments: {} }, tool: offered(snapshot, 'die'), idempotency_key: 'e'.repeat(64) })
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({ name: 'McpCallError', server: 'old', serverExited: true, message: expect.stringMatching(/connection to MCP server "old" .* was lost/) });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('an unreachable server fails the start, saying where', async () => {
    const server = await remote('streamable');
    const url = server.url();
    await server.close();
    const failure = await host({ id: 'gone', url, args: [] }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(McpStartError);
    expect((failure as Error).message).toMatch(/MCP server "gone" did not start: could not reach http:\/\/127\.0\.0\.1:\d+\/mcp \(ECONNREFUSED\)/);
  });
});
