import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { AgentSpec } from '@shared/contracts/spec';
import { runAgent } from '../engine/run-agent';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { startRemoteMcpServer, type RemoteMcpServer } from '../../test-support/remote-mcp-server';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { encodeOtlpJson } from './encode-otlp';
import type { SpanRecord } from './span-record';
import { runSpans } from './trace-to-spans';

/**
 * A tool called through MCP, exported after the OpenTelemetry MCP semantic conventions: a client span
 * `tools/call TOOL` under the GenAI `execute_tool` span, from real runs (scripted models, the model
 * boundary's test double; real MCP servers over Streamable HTTP and stdio).
 */
const CAPS = fileURLToPath(new URL('../../test-support/capabilities-mcp-server.mjs', import.meta.url));
const PLANTED = 'planted-secret-7f3a9c2e41';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function run(spec: unknown, student: unknown[], status = 'completed'): Promise<RunEvent[]> {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const events: RunEvent[] = [];
  const result = await runAgent({
    spec: AgentSpec.parse(spec),
    specDir: ws.dir,
    script: { latency_ms: 0, student: student.map((json) => ({ json })), teacher: [] },
    ledger: createMemoryLedger(),
    onEvent: (e) => events.push(e),
  });
  expect(result.status, result.message).toBe(status);
  return events;
}

const named = (spans: SpanRecord[], name: string) => spans.filter((s) => s.name === name);

describe('MCP tool calls in an OTLP export', () => {
  it('a remote call is a tools/call client span with its server address and an error status when it failed; a planted secret is in no span', async () => {
    const server: RemoteMcpServer = await startRemoteMcpServer('streamable');
    cleanups.push(() => server.close());
    const events = await run(
      {
        format: 'steward/v1',
        kind: 'agent',
        id: 'remote-otlp',
        name: 'Remote',
        instructions: 'Echo.',
        task: 'Echo the token.',
        servers: [{ id: 'remote', url: server.url() }],
        tool_effects: { 'remote/echo': { effect: 'read', sensitive_arguments: ['text'] }, 'remote/die': { effect: 'read' } },
        supervision: { enabled: false },
      },
      [
        { decision_type: 'tool_call', tool_name: 'echo', arguments: { text: PLANTED } },
        { decision_type: 'tool_call', tool_name: 'die', arguments: {} },
      ],
      // The server is gone after `die`: the run cannot list its tools for the next round.
      'failed',
    );
    const spans = runSpans(events);
    const [echo] = named(spans, 'tools/call echo');
    const parent = spans.find((s) => s.spanId === echo?.parentSpanId);
    expect(parent?.name).toBe('execute_tool echo');
    expect(echo).toMatchObject({ kind: 'client', status: { code: 'ok' } });
    expect(echo?.attributes['gen_ai.operation.name']).toBeUndefined();
    expect(echo?.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'server.address': '127.0.0.1',
      'server.port': server.port,
      'steward.mcp.server': 'remote',
    });
    const [die] = named(spans, 'tools/call die');
    expect(die?.status.code).toBe('error');
    expect(die?.attributes['error.type']).toBe('tool_call_failed');
    // The secret was sent (the server echoed it); the export holds it masked, never its value.
    expect(JSON.stringify(events)).not.toContain(PLANTED);
    expect(Buffer.from(encodeOtlpJson(spans)).toString('utf8')).not.toContain(PLANTED);
  });

  it('a stdio call goes through a pipe, has no server address, and carries the progress its server reported as span events', async () => {
    const events = await run(
      {
        format: 'steward/v1',
        kind: 'agent',
        id: 'stdio-otlp',
        name: 'Stdio',
        instructions: 'Tick.',
        task: 'Tick a while.',
        servers: [{ id: 'caps', command: process.execPath, args: [CAPS] }],
        tool_effects: { 'caps/ticking': { effect: 'read' } },
        supervision: { enabled: false },
      },
      [
        { decision_type: 'tool_call', tool_name: 'ticking', arguments: { ticks: 4, every_ms: 100 } },
        { decision_type: 'complete', output: 'done' },
      ],
    );
    expect(events.filter((e) => e.type === 'tool.progress').length).toBeGreaterThanOrEqual(1);
    const [ticking] = named(runSpans(events), 'tools/call ticking');
    expect(ticking?.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'ticking', 'network.transport': 'pipe' });
    expect(ticking?.attributes['server.address']).toBeUndefined();
    expect(ticking?.events[0]).toMatchObject({ name: 'notifications/progress', attributes: { 'steward.progress': 1, 'steward.progress.total': 4, 'steward.progress.message': 'step 1 of 4' } });
  });
});
