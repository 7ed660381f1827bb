import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface FloodingMcpServer {
  port: number;
  url(): string;
  /** Bytes of the `flood` answer each call had written when its connection closed or it ended. */
  floods: number[];
  close(): Promise<void>;
}

export interface FloodOptions {
  /** Size of the `flood` tool's text, in bytes (one JSON-RPC answer of about that size). */
  answerBytes: number;
  /**
   * `sse`: the answer is one event of the POST's text/event-stream (the SDK server's default);
   * `json`: an application/json body; `legacy-sse`: the older HTTP+SSE transport (at /sse), where
   * every answer is an event of the one GET stream.
   */
  as: 'sse' | 'json' | 'legacy-sse';
}

const CHUNK = Buffer.alloc(64 * 1024, 'x');

/**
 * A real MCP server on loopback (the SDK's own server classes; Streamable HTTP, stateless, or the
 * older HTTP+SSE) whose tool
 * `flood` answers with a text of `answerBytes`, written lazily in 64 KiB chunks as the socket takes
 * them: nothing of its size is held here, and the bytes it got to write say when the client stopped
 * reading. `echo` answers normally, to show the server is still usable after a flood.
 */
export async function startFloodingMcpServer(options: FloodOptions): Promise<FloodingMcpServer> {
  const floods: number[] = [];
  const sockets = new Set<Socket>();
  const legacy = new Map<string, { t: SSEServerTransport; stream: ServerResponse }>();
  const http = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });

  const flood = async (res: ServerResponse, id: string | number, head: boolean): Promise<void> => {
    floods.push(0);
    const index = floods.length - 1;
    await writeFlood(res, id, options, head, (bytes) => (floods[index] = bytes));
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    if (options.as === 'legacy-sse') return handleLegacy(req, res, url);
    if (url.pathname !== '/mcp') return void res.writeHead(404).end();
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const call = floodCall(body);
    if (call !== undefined) return flood(res, call.id, true);
    const server = mcpServer();
    const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: options.as === 'json' });
    res.on('close', () => void t.close().then(() => server.close()));
    await server.connect(t);
    await t.handleRequest(req, res, body);
  }

  async function handleLegacy(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (url.pathname === '/sse' && req.method === 'GET') {
      const t = new SSEServerTransport('/messages', res);
      legacy.set(t.sessionId, { t, stream: res });
      res.on('close', () => legacy.delete(t.sessionId));
      await mcpServer().connect(t);
      return;
    }
    const session = legacy.get(url.searchParams.get('sessionId') ?? '');
    if (url.pathname !== '/messages' || req.method !== 'POST') return void res.writeHead(url.pathname === '/sse' ? 405 : 404).end();
    if (!session) return void res.writeHead(404).end('no such session');
    const body = await readJson(req);
    const call = floodCall(body);
    if (call === undefined) return session.t.handlePostMessage(req, res, body);
    res.writeHead(202).end('Accepted');
    await flood(session.stream, call.id, false);
  }

  http.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  return {
    port,
    url: () => `http://127.0.0.1:${port}${options.as === 'legacy-sse' ? '/sse' : '/mcp'}`,
    floods,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        http.close(() => resolve());
      }),
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as unknown;
}

function floodCall(body: unknown): { id: string | number } | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const m = body as { method?: unknown; id?: unknown; params?: { name?: unknown } };
  if (m.method !== 'tools/call' || m.params?.name !== 'flood') return undefined;
  return typeof m.id === 'string' || typeof m.id === 'number' ? { id: m.id } : undefined;
}

/**
 * The answer, spliced around a text generated as it is sent; stops when the client hangs up.
 * `head`: the answer is the response (else an event on a stream already open).
 */
async function writeFlood(res: ServerResponse, id: string | number, options: FloodOptions, head: boolean, progress: (bytes: number) => void): Promise<void> {
  const start = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`;
  const tail = '"}]}}';
  const event = options.as !== 'json';
  if (head) res.writeHead(200, { 'content-type': event ? 'text/event-stream' : 'application/json' });
  res.write(event ? `event: message\ndata: ${start}` : start);
  let written = 0;
  while (written < options.answerBytes && !res.destroyed) {
    const chunk = CHUNK.subarray(0, Math.min(CHUNK.length, options.answerBytes - written));
    written += chunk.length;
    progress(written);
    if (!res.write(chunk)) await writable(res);
  }
  if (res.destroyed) return;
  if (!event) res.end(tail);
  else if (head) res.end(`${tail}\n\n`);
  else res.write(`${tail}\n\n`);
}

/** Until the socket takes more or closes (one listener each, removed after). */
function writable(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'flooding-test-server', version: '1.0.0' });
  server.registerTool('echo', { description: 'Says the text back', inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text: `echo: ${text}` }],
  }));
  // Listed like any tool; its calls are answered by writeFlood, never by this handler.
  server.registerTool('flood', { description: 'Answers with a very large text', inputSchema: {} }, () => ({ content: [{ type: 'text', text: '' }] }));
  return server;
}
