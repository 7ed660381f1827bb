import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** One HTTP request the server received: what a test asserts about (headers included). */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

export interface RemoteMcpServer {
  port: number;
  /** `http://<host>:<port><path>`: the server's MCP address on that host (default 127.0.0.1). */
  url(host?: string): string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/**
 * A real MCP server over HTTP, built with the SDK's own server classes, on every interface of this
 * machine (port chosen by the OS). `streamable`: Streamable HTTP at /mcp (stateless: a server per
 * request). `sse`: the older HTTP+SSE only, at /sse (a POST there is 405, as such servers answer),
 * reached by a client through its fallback. Tools: `echo` (text back), `die` (the server drops
 * every connection and stops listening while the call is in flight).
 */
export async function startRemoteMcpServer(transport: 'streamable' | 'sse'): Promise<RemoteMcpServer> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const sse = new Map<string, SSEServerTransport>();
  const http = createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  const die = (): void => {
    for (const socket of sockets) socket.destroy();
    http.close();
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (transport === 'streamable' && path === '/mcp') {
      const server = mcpServer(die);
      const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void t.close().then(() => server.close()));
      await server.connect(t);
      await t.handleRequest(req, res);
      return;
    }
    if (transport === 'sse' && path === '/sse' && req.method === 'GET') {
      const t = new SSEServerTransport('/messages', res);
      sse.set(t.sessionId, t);
      res.on('close', () => sse.delete(t.sessionId));
      await mcpServer(die).connect(t);
      return;
    }
    if (transport === 'sse' && path === '/messages' && req.method === 'POST') {
      const t = sse.get(new URL(req.url ?? '/', 'http://x').searchParams.get('sessionId') ?? '');
      if (!t) return void res.writeHead(404).end('no such session');
      await t.handlePostMessage(req, res);
      return;
    }
    res.writeHead(transport === 'sse' && path === '/sse' ? 405 : 404).end();
  }

  http.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => http.listen(0, '::', resolve));
  const port = (http.address() as AddressInfo).port;
  const path = transport === 'streamable' ? '/mcp' : '/sse';
  return {
    port,
    url: (host = '127.0.0.1') => `http://${host}:${port}${path}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        http.close(() => resolve());
        if (!http.listening) resolve();
      }),
  };
}

function mcpServer(die: () => void): McpServer {
  const server = new McpServer({ name: 'remote-test-server', version: '1.0.0' });
  server.registerTool('echo', { description: 'Says the text back', inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text: `echo: ${text}` }],
  }));
  server.registerTool('die', { description: 'Stops the server mid-call', inputSchema: {} }, () => {
    setTimeout(die, 50);
    return new Promise<never>(() => undefined);
  });
  return server;
}

/** An address of this machine that is not loopback (what a remote host looks like to the policy), if it has one. */
export function nonLoopbackAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((i) => i !== undefined && !i.internal && i.family === 'IPv4')?.address;
}
