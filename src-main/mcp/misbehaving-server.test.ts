import { describe, expect, it } from 'vitest';
import type { ToolCallDecision } from '@shared/contracts/decision';
import { splitDetails } from '@shared/contracts/code-words';
import { McpAnswerTooLargeError, McpStartError } from './errors';
import { scriptServerHosts } from '../../test-support/script-server-host';

/** A real stdio MCP server (SDK-built) that misbehaves on request: see the script's header. */
const startNoisy = scriptServerHosts('./misbehaving-mcp-server.mjs', 'noisy');
const start = (args: string[], options: { onProgress?: (line: string) => void; progressIntervalMs?: number } = {}) => startNoisy(args, {}, options);

describe('an MCP server that misbehaves on stdio (real server process)', () => {
  it('a banner printed on stdout before the handshake is reported as non-protocol output, not a handshake timeout', async () => {
    const failure = await start(['--banner', 'starting the noisy server…']).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(McpStartError);
    // The line's start, as far as the JSON parser quotes it: enough to recognise the banner.
    expect((failure as Error).message).toMatch(/MCP server "noisy" .*wrote non-protocol text on stdout: 'starting t…' — servers must log to stderr/);
    expect((failure as Error).message).not.toMatch(/handshake/);
  });

  it('a JSON log line that is not JSON-RPC is reported the same way', async () => {
    const failure = await start(['--banner', '{"level":"info","msg":"ready"}']).catch((error: unknown) => error);
    expect((failure as Error).message).toMatch(/wrote non-protocol text on stdout: .*servers must log to stderr/);
  });

  it('a slow tool listing logs that it is still waiting instead of waiting silently', async () => {
    const lines: string[] = [];
    const host = await start(['--list-delay', '700'], { onProgress: (line) => lines.push(line), progressIntervalMs: 200 });
    const snapshot = await host.snapshot(0);
    expect(snapshot.tools.map((t) => t.name)).toContain('ping');
    const waiting = lines.filter((l) => l.includes('still waiting for "noisy" to list its tools'));
    expect(waiting.length).toBeGreaterThanOrEqual(2);
    expect(waiting[0]).toMatch(/\(0\.2 s\)…$/);
  });

  it("a server's error answer reaches the run in the server's words: no SDK prefix, the JSON-RPC code in the details", async () => {
    const host = await start([]);
    const snapshot = await host.snapshot(0);
    const tool = snapshot.tools.find((t) => t.name === 'refuse');
    if (!tool) throw new Error('no refuse tool');
    const execution = await host.execute({ decision: { decision_type: 'tool_call', tool_name: 'refuse', arguments: {} }, tool, idempotency_key: 'k-refuse' });
    expect(execution).toMatchObject({ ok: true, is_error: true, content: 'the disk is full (details: MCP error -32603)' });
    expect(splitDetails(execution.content)).toEqual({ words: 'the disk is full', details: 'MCP error -32603' });
  });

  it('a tool result nested 100,000 levels deep is a clear error, not a stack overflow', async () => {
    const host = await start([]);
    const snapshot = await host.snapshot(0);
    const tool = snapshot.tools.find((t) => t.name === 'deep');
    if (!tool) throw new Error('no deep tool');
    const decision: ToolCallDecision = { decision_type: 'tool_call', tool_name: 'deep', arguments: {} };
    const outcome = await host.execute({ decision, tool, idempotency_key: 'k-deep' }).then(
      (execution) => JSON.stringify(execution),
      (error: unknown) => (error as Error).message,
    );
    expect(outcome).toMatch(/nested deeper than \d+ levels/);
    expect(outcome).not.toMatch(/call stack/);
  });

  it('a stdout line past the message bound stops the server, saying so (the SDK reads a line whole, up to that bound)', async () => {
    const host = await start([]);
    const snapshot = await host.snapshot(0);
    const tool = snapshot.tools.find((t) => t.name === 'flood');
    if (!tool) throw new Error('no flood tool');
    const failure = await host.execute({ decision: { decision_type: 'tool_call', tool_name: 'flood', arguments: {} }, tool, idempotency_key: 'k-flood' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(McpAnswerTooLargeError);
    expect(failure).toMatchObject({ server: 'noisy', serverExited: true });
    expect((failure as Error).message).toBe(
      'MCP server "noisy" wrote a message larger than 8 MiB on stdout; Steward stopped reading it and stopped the server; its tools are unavailable for the rest of this run',
    );
    expect(host.status()[0]?.alive).toBe(false);
  });
});
