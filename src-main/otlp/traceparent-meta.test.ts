import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentSpec } from '@shared/contracts/spec';
import type { RunEvent } from '@shared/contracts/events';
import { ModelScript } from '@shared/contracts/script';
import { runAgent } from '../engine/run-agent';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { startModernLoopbackServer } from '../mcp/modern-loopback-server';
import { resolveProvider } from '../providers/resolve-provider';
import { cliWith } from '../../test-support/cli-capture';
import { plantedKeychain } from '../../test-support/planted-keychain';
import { readTraceFile } from '../../test-support/trace-file';
import { EXIT } from '../shells/cli/cli';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { exportEvents } from './export-otlp';
import { runTraceId, toolCallTraceparent } from './trace-ids';

/**
 * Issue 30: each tool call carries W3C `traceparent` in `params._meta` (SEP-414, the OpenTelemetry
 * MCP conventions), on MCP 2026-07-28 and on the 2025 revisions alike, naming the run's trace and
 * the call's `tools/call` client span exactly as the OTLP export of the run names them — so a
 * server's own spans join Steward's trace under the call. Real servers (SDK v2 and SDK 1.x); the
 * model is the scripted double at the boundary.
 */
const { hasSessionBus, store, planted: PLANTED, plant } = plantedKeychain();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

/** A real MCP server on the 2025 revisions only (SDK 1.x, Streamable HTTP, stateless): its `echo` records the `_meta` each call brought. */
async function start2025Server(): Promise<{ url: string; metas: Array<Record<string, unknown>>; versions: string[] }> {
  const metas: Array<Record<string, unknown>> = [];
  const versions: string[] = [];
  const http: Server = createServer((req, res) => {
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string') versions.push(version);
    const server = new McpServer({ name: 'meta-recorder-2025', version: '1.0.0' });
    server.registerTool('echo', { description: 'Says the text back.', inputSchema: { text: z.string() } }, ({ text }, extra) => {
      metas.push({ ...(extra._meta ?? {}) });
      return { content: [{ type: 'text', text: `echo: ${text}` }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => server.close()));
    void server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, metas, versions };
}

/** An agent whose student echoes once and completes, every step accepted by the teacher. */
async function echoRun(server: Record<string, unknown>): Promise<RunEvent[]> {
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'traced-echo',
    name: 'Traced echo',
    instructions: 'Use the server.',
    task: 'Echo something.',
    servers: [{ id: 'srv', tools: ['echo'], ...server }],
    tool_effects: { 'srv/echo': { effect: 'read' } },
    supervision: { phase: 2 },
  });
  const script = ModelScript.parse({
    latency_ms: 0,
    student: [{ json: { decision_type: 'tool_call', tool_name: 'echo', arguments: { text: 'hello' } } }, { json: { decision_type: 'complete', output: 'done' } }],
    teacher: [
      { json: { verdict: 'accept', reason_codes: [], explanation: 'Echo is harmless.' } },
      { json: { verdict: 'accept', reason_codes: [], explanation: 'Done.' } },
    ],
  });
  const ws = tempNotesWorkspace();
  cleanups.push(() => ws.cleanup());
  const events: RunEvent[] = [];
  const result = await runAgent({
    spec,
    specDir: ws.dir,
    ledger: createMemoryLedger(),
    onEvent: (e) => events.push(e),
    credentials: store,
    providers: { student: resolveProvider({ provider: 'script' }, 'student', { script }), teacher: resolveProvider({ provider: 'script' }, 'teacher', { script }) },
  });
  expect(result.status, `${result.message} ${result.setup_error}`).toBe('completed');
  expect(result.executions[0]?.content).toBe('echo: hello');
  return events;
}

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

/** The run's OTLP export (what `steward trace otlp` writes), and its `tools/call echo` span. */
function exportedCallSpan(events: readonly RunEvent[]): { spans: ExportedSpan[]; call: ExportedSpan } {
  const request = JSON.parse(new TextDecoder().decode(exportEvents(events).body)) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: ExportedSpan[] }> }> };
  const spans = request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
  const call = spans.find((s) => s.name === 'tools/call echo');
  if (!call) throw new Error(`the export has no tools/call span: ${spans.map((s) => s.name).join(', ')}`);
  return { spans, call };
}

/** The server's spans join the run's trace: the traceparent's trace id is the export's, its parent the call's client span. */
function expectJoinsTrace(traceparent: unknown, events: readonly RunEvent[]): void {
  expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  const [, traceId, parentId] = String(traceparent).split('-');
  const { spans, call } = exportedCallSpan(events);
  const runId = events[0]?.run_id ?? '';
  expect(traceId).toBe(runTraceId(runId));
  expect(spans.every((s) => s.traceId === traceId)).toBe(true);
  expect(parentId).toBe(call.spanId);
  // The call's span sits under its execute_tool span, in the same trace.
  expect(spans.find((s) => s.spanId === call.parentSpanId)?.name).toBe('execute_tool echo');
  const executed = events.find((e) => e.type === 'tool.executed');
  expect(executed?.type === 'tool.executed' && toolCallTraceparent(runId, executed.execution.idempotency_key)).toBe(traceparent);
}

describe('traceparent in a tool call\'s _meta joins the server to the run\'s OTLP trace', () => {
  it('MCP 2026-07-28: the server receives the traceparent of the call\'s client span in the run\'s trace', async () => {
    const server = await startModernLoopbackServer('reject');
    cleanups.push(() => server.close());
    const events = await echoRun({ url: server.url });
    expect(server.calls.map((c) => c.tool)).toEqual(['echo']);
    expectJoinsTrace(server.calls[0]?.traceparent, events);
  }, 30_000);

  it('MCP 2025: the same _meta.traceparent reaches a server on the older revisions', async () => {
    const server = await start2025Server();
    const events = await echoRun({ url: server.url });
    expect(server.versions.some((v) => v.startsWith('2025-'))).toBe(true);
    expect(server.metas).toHaveLength(1);
    expectJoinsTrace(server.metas[0]?.traceparent, events);
    // Trace context and the SDK's progress token, nothing else.
    expect(Object.keys(server.metas[0] ?? {}).sort()).toEqual(['progressToken', 'traceparent']);
  }, 30_000);

  it('two runs have two traces; exporting a run twice gives the ids the server got', async () => {
    const server = await start2025Server();
    const first = await echoRun({ url: server.url });
    const second = await echoRun({ url: server.url });
    expect(server.metas.map((m) => m.traceparent)).toEqual([exportedTraceparent(first), exportedTraceparent(second)]);
    expect(exportedTraceparent(first)).not.toBe(exportedTraceparent(second));
    expect(exportedTraceparent(first)).toBe(exportedTraceparent([...first]));
  }, 30_000);

  it('a workflow\'s tool node, through the CLI: the traceparent names the workflow run\'s trace in `steward trace otlp`', async () => {
    const server = await start2025Server();
    const dir = mkdtempSync(join(tmpdir(), 'steward-traceparent-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'echo.workflow.json');
    writeFileSync(
      file,
      JSON.stringify({
        format: 'steward/v1',
        kind: 'workflow',
        id: 'traced',
        name: 'Traced echo',
        servers: [{ id: 'srv', url: server.url }],
        nodes: [
          { id: 'say', kind: 'tool', server: 'srv', tool: 'echo', arguments: { text: 'hello' }, inputs: [] },
          { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'any' }] },
        ],
        edges: [{ from: { node: 'say', port: 'result' }, to: { node: 'out', port: 'said' } }],
      }),
    );
    const trace = join(dir, 'run.jsonl');
    const run = await cliWith(['run', file, '--yes', '--data-dir', join(dir, 'data'), '--trace', trace]);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    const otlp = join(dir, 'run.otlp.json');
    const exported = await cliWith(['trace', 'otlp', trace, '-o', otlp, '--data-dir', join(dir, 'data')]);
    expect(exported.code, exported.stderr).toBe(EXIT.ok);
    const request = JSON.parse(readFileSync(otlp, 'utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: ExportedSpan[] }> }> };
    const spans = request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    const call = spans.find((s) => s.name === 'tools/call echo');
    expect(server.metas).toHaveLength(1);
    expect(server.metas[0]?.traceparent).toBe(`00-${call?.traceId}-${call?.spanId}-01`);
    const runId = readTraceFile(trace)[0]?.run_id ?? '';
    expect(call?.traceId).toBe(runTraceId(runId));
    // The workflow's root span is in the same trace: the server's spans hang under the workflow run.
    expect(spans.find((s) => s.parentSpanId === undefined)?.traceId).toBe(call?.traceId);
    expect(spans.every((s) => s.traceId === call?.traceId)).toBe(true);
  }, 60_000);

  it.skipIf(!hasSessionBus)('a planted secret (a server header from the keychain) never appears in _meta (needs a D-Bus Secret Service)', async () => {
    await plant(`Bearer ${PLANTED}`);
    const server = await start2025Server();
    const events = await echoRun({ url: server.url, headers: { Authorization: 'keychain:planted-token' } });
    expect(server.metas).toHaveLength(1);
    expect(JSON.stringify(server.metas)).not.toContain(PLANTED);
    expectJoinsTrace(server.metas[0]?.traceparent, events);
  }, 30_000);
});

function exportedTraceparent(events: readonly RunEvent[]): string {
  const { call } = exportedCallSpan(events);
  return `00-${call.traceId}-${call.spanId}-01`;
}
