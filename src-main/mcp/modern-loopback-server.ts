import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { registerBookRoom } from '../../test-support/book-room.mjs';

/** One `tools/call` as the server saw it: the state it got back, the answers, the trace context. */
export interface SeenCall {
  tool: string;
  requestState?: string;
  answered?: 'accept' | 'decline' | 'cancel';
  traceparent?: string;
}

/** One span the server made of a `tools/call` it served: in the caller's trace, under the caller's span, when the call carried `traceparent`. */
export interface ServerSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  /** What the call came back with: `input_required` (it asked), or the tool's answer. */
  outcome: 'input_required' | 'complete';
}

export interface ModernLoopbackServer {
  url: string;
  calls: SeenCall[];
  /** The spans the server made, as it exported them. */
  spans: ServerSpan[];
  close(): Promise<void>;
}

export interface ModernLoopbackOptions {
  /**
   * An OTLP/HTTP collector's base URL: the server exports each span it makes there (`/v1/traces`,
   * OTLP JSON), as a server instrumented with OpenTelemetry does. Its spans join the caller's trace
   * through the `traceparent` each call brings in `_meta`.
   */
  otlp?: string;
  /** The port on 127.0.0.1 (0: any free one). */
  port?: number;
}

/**
 * A real MCP server on 2026-07-28, built with the SDK v2 server package (the peer of the code under
 * test, like the reference servers), on 127.0.0.1: `book_room` asks the person for input mid-call
 * (an `input_required` result with a form: who the room is for, default "a guest", how many nights,
 * default 1, and
 * an opaque `requestState`), then completes with the answer; `echo` answers at once. `legacy`:
 * `'stateless'` serves 2025 clients too (a server that moved on but still answers the old way),
 * `'reject'` serves 2026-07-28 only.
 */
export async function startModernLoopbackServer(legacy: 'stateless' | 'reject' = 'stateless', options: ModernLoopbackOptions = {}): Promise<ModernLoopbackServer> {
  const calls: SeenCall[] = [];
  const spans: ServerSpan[] = [];
  let minted = 0;
  /** The span of one served call, made and exported before its answer goes back. */
  const traced = async <T,>(tool: string, meta: Readonly<Record<string, unknown>> | undefined, serve: () => T): Promise<T> => {
    const started = process.hrtime.bigint();
    const startedAt = BigInt(Date.now()) * 1_000_000n;
    const answer = serve();
    const parent = parseTraceparent(trace(meta).traceparent);
    const span: ServerSpan = {
      traceId: parent?.traceId ?? randomBytes(16).toString('hex'),
      spanId: randomBytes(8).toString('hex'),
      ...(parent ? { parentSpanId: parent.spanId } : {}),
      name: `tools/call ${tool}`,
      startTimeUnixNano: String(startedAt),
      endTimeUnixNano: String(startedAt + (process.hrtime.bigint() - started)),
      outcome: (answer as { resultType?: unknown }).resultType === 'input_required' ? 'input_required' : 'complete',
    };
    spans.push(span);
    if (options.otlp !== undefined) await exportSpan(options.otlp, span).catch(() => undefined);
    return answer;
  };
  const factory = () => {
    const server = new McpServer({ name: 'modern-loopback', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.registerTool('echo', { description: 'Says the text back.', inputSchema: z.object({ text: z.string() }) }, ({ text }, ctx) =>
      traced('echo', ctx.mcpReq._meta, () => {
        calls.push({ tool: 'echo', ...trace(ctx.mcpReq._meta) });
        return { content: [{ type: 'text' as const, text: `echo: ${text}` }] };
      }),
    );
    registerBookRoom(server, {
      seen: (call, meta) => calls.push({ ...call, ...trace(meta) }),
      mint: () => (minted += 1),
      wrap: (meta, serve) => traced('book_room', meta, serve),
    });
    return server;
  };
  const handler = createMcpHandler(factory, { legacy });
  const server = http.createServer(toNodeHandler(handler));
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    spans,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function trace(meta: Readonly<Record<string, unknown>> | undefined): { traceparent?: string } {
  const traceparent = meta === undefined ? undefined : Object.hasOwn(meta, 'traceparent') ? meta.traceparent : undefined;
  return typeof traceparent === 'string' ? { traceparent } : {};
}

function parseTraceparent(value: string | undefined): { traceId: string; spanId: string } | undefined {
  const match = value === undefined ? null : /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/.exec(value);
  return match?.[1] !== undefined && match[2] !== undefined ? { traceId: match[1], spanId: match[2] } : undefined;
}

/** One span as OTLP/HTTP JSON, sent to the collector (its service: this server). */
async function exportSpan(collector: string, span: ServerSpan): Promise<void> {
  const body = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'modern-loopback' } }] },
        scopeSpans: [
          {
            scope: { name: 'modern-loopback-server' },
            spans: [
              {
                traceId: span.traceId,
                spanId: span.spanId,
                ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
                name: span.name,
                kind: 2,
                startTimeUnixNano: span.startTimeUnixNano,
                endTimeUnixNano: span.endTimeUnixNano,
                attributes: [
                  { key: 'mcp.method.name', value: { stringValue: 'tools/call' } },
                  { key: 'gen_ai.tool.name', value: { stringValue: span.name.slice('tools/call '.length) } },
                  { key: 'mcp.result.type', value: { stringValue: span.outcome } },
                ],
              },
            ],
          },
        ],
      },
    ],
  };
  await fetch(`${collector.replace(/\/+$/, '')}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(5_000) });
}
