import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerSpec } from '@shared/contracts/spec';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import type { ElicitationAsk, ElicitationReply } from './client-capabilities';
import { McpAnswerTooLargeError } from './errors';
import { startToolHost, type McpToolHost, type ToolHostOptions } from './mcp-tool-host';

/**
 * Issue 30 over stdio: a stdio server is asked for MCP 2026-07-28 first, on the one process it runs
 * as. A 2026-07-28 server started by the test (SDK v2 server package over stdio,
 * test-support/modern-stdio-mcp-server.mjs) is used on it: a tool call works, its input request
 * mid-call is put to the person and the retried call carries the answer, and a change to its tool
 * list reaches Steward through `subscriptions/listen`. The 2025 reference servers refuse the
 * request and connect the 2025 way on the same process, unchanged.
 */
const MODERN = fileURLToPath(new URL('../../test-support/modern-stdio-mcp-server.mjs', import.meta.url));
const OLDER = fileURLToPath(new URL('../../test-support/older-stdio-mcp-server.mjs', import.meta.url));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function host(spec: McpServerSpec, options: Partial<ToolHostOptions> = {}): Promise<McpToolHost> {
  const started = await startToolHost([spec], { vars: {}, overrides: {}, cwd: os.tmpdir(), startTimeoutMs: 15_000, callTimeoutMs: 10_000, ...options });
  cleanups.push(() => started.close());
  return started;
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

/** The calls the server saw, as it wrote them to stderr (`seen {json}`). */
function seen(h: McpToolHost): unknown[] {
  return (h.status()[0]?.stderr ?? []).filter((line) => line.startsWith('seen ')).map((line) => JSON.parse(line.slice(5)) as unknown);
}

describe('a stdio server on MCP 2026-07-28', () => {
  it('is used on 2026-07-28; its input request mid-call is put to the person, and the retried call carries the answer and its requestState', async () => {
    const asked: ElicitationAsk[] = [];
    const person = async (ask: ElicitationAsk): Promise<ElicitationReply> => {
      asked.push(ask);
      return { action: 'accept', content: { who: 'Ada', nights: 2 } };
    };
    const h = await host({ id: 'hotel', command: process.execPath, args: [MODERN, '--modern-only'] }, { onElicit: person });
    const status = h.status()[0];
    expect(status).toMatchObject({ id: 'hotel', alive: true, server_name: 'modern-stdio', protocol_version: '2026-07-28' });
    expect(status?.pid).toBeGreaterThan(0);
    expect(status?.url).toBeUndefined();

    expect(await call(h, 'echo', { text: 'hi' })).toMatchObject({ ok: true, is_error: false, content: 'echo: hi' });
    const booked = await call(h, 'book_room', { room: 'blue' });
    expect(booked).toMatchObject({ server: 'hotel', tool: 'book_room', ok: true, is_error: false, content: 'booked blue for Ada (2 nights)' });
    expect(asked).toEqual([
      expect.objectContaining({ server: 'hotel', mode: 'form', message: 'Who is room blue for?', fields: [expect.objectContaining({ name: 'who', required: true }), expect.objectContaining({ name: 'nights', required: false })] }),
    ]);
    // Two requests on the pipe for one call: the first asked, the retry brought the answer and the state back untouched.
    await expect.poll(() => seen(h)).toEqual([{ tool: 'echo' }, { tool: 'book_room' }, { tool: 'book_room', requestState: 'booking-blue-1', answered: 'accept' }]);
    // Closing ends the process.
    await h.close();
    expect(() => process.kill(status?.pid as number, 0)).toThrow();
  });

  it('announces a new tool through subscriptions/listen: the next round offers it', async () => {
    const h = await host({ id: 'grow', command: process.execPath, args: [MODERN] });
    const before = await h.snapshot(0);
    expect(before.tools.map((t) => t.name).sort()).toEqual(['book_room', 'echo', 'flood', 'unlock']);
    expect((await h.snapshot(1)).hash).toBe(before.hash);
    expect(await call(h, 'unlock', {})).toMatchObject({ ok: true, content: 'unlocked' });
    await expect.poll(async () => (await h.snapshot(2)).tools.map((t) => t.name).sort()).toEqual(['book_room', 'echo', 'flood', 'opened', 'unlock']);
    expect(await call(h, 'opened', { note: 'door' })).toMatchObject({ ok: true, content: 'opened: door' });
  });

  it('a stdout line past the message bound stops the server, saying so, as for a 2025 server', async () => {
    const h = await host({ id: 'noisy', command: process.execPath, args: [MODERN, '--modern-only'] });
    const failure = await call(h, 'flood', {}).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(McpAnswerTooLargeError);
    expect(failure).toMatchObject({ server: 'noisy', serverExited: true });
    expect((failure as Error).message).toBe('MCP server "noisy" wrote a message larger than 8 MiB on stdout; Steward stopped reading it and stopped the server; its tools are unavailable for the rest of this run');
    await expect.poll(() => h.status()[0]?.alive).toBe(false);
  });

  it('a process that exits is named with its last stderr line', async () => {
    const h = await host({ id: 'hotel', command: process.execPath, args: [MODERN, '--modern-only'] });
    const pid = h.status()[0]?.pid as number;
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => h.status()[0]?.alive).toBe(false);
    await expect(call(h, 'echo', { text: 'hi' })).rejects.toThrow(/MCP server "hotel" exited unexpectedly \(last stderr: modern-stdio server ready\)/);
  });
});

describe('the 2025 reference servers over stdio', () => {
  it('refuse server/discover and connect the 2025 way on the same process, unchanged', async () => {
    const lines: string[] = [];
    const h = await host({ id: 'memory', package: '@modelcontextprotocol/server-memory', args: [], env: { MEMORY_FILE_PATH: `${os.tmpdir()}/steward-modern-stdio-${process.pid}.json` } }, { onLog: (line) => lines.push(line) });
    expect(h.status()[0]).toMatchObject({ alive: true, server_name: 'memory-server', protocol_version: '2025-11-25' });
    // It uses none of the features 2026-07-28 deprecates (server-everything declares logging: protocol-revision.test.ts).
    expect(h.status()[0]?.deprecated_features).toBeUndefined();
    expect(await call(h, 'read_graph', {})).toMatchObject({ ok: true, is_error: false });
    // One process, and the log a 2025 start always had: the refused probe adds nothing to it.
    expect(lines).toEqual(['[mcp memory] Knowledge Graph MCP Server running on stdio', expect.stringMatching(/^\[mcp memory\] started pid \d+ \(memory-server\)$/)]);
  });

  it('a server that ignores server/discover gets the 2025 handshake on the same process once the probe gives up', async () => {
    const lines: string[] = [];
    const h = await host({ id: 'silent', command: process.execPath, args: [OLDER, '--on-discover', 'silent'] }, { startTimeoutMs: 4_000, onLog: (line) => lines.push(line) });
    const status = h.status()[0];
    expect(status).toMatchObject({ alive: true, server_name: 'older-server', protocol_version: '2025-11-25' });
    expect(await call(h, 'whoami', {})).toMatchObject({ ok: true, content: `pid ${status?.pid ?? ''}` });
    expect(lines.filter((l) => l.includes('started pid'))).toHaveLength(1);
  });

  it('a server that exits on server/discover is started once more, the 2025 way, and works', async () => {
    const lines: string[] = [];
    const h = await host({ id: 'fragile', command: process.execPath, args: [OLDER, '--on-discover', 'exit'] }, { onLog: (line) => lines.push(line) });
    expect(h.status()[0]).toMatchObject({ alive: true, server_name: 'older-server', protocol_version: '2025-11-25' });
    expect(lines.join('\n')).toMatch(/\[mcp fragile\] was gone after being asked for MCP 2026-07-28 .*; starting it again for the 2025 handshake/);
    expect(await call(h, 'whoami', {})).toMatchObject({ ok: true });
  });
});
