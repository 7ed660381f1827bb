import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { McpServer, acceptedContent, createMcpHandler, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';

/** One `tools/call` as the server saw it: the state it got back, the answers, the trace context. */
export interface SeenCall {
  tool: string;
  requestState?: string;
  answered?: 'accept' | 'decline' | 'cancel';
  traceparent?: string;
}

export interface ModernLoopbackServer {
  url: string;
  calls: SeenCall[];
  close(): Promise<void>;
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
export async function startModernLoopbackServer(legacy: 'stateless' | 'reject' = 'stateless'): Promise<ModernLoopbackServer> {
  const calls: SeenCall[] = [];
  let minted = 0;
  const factory = () => {
    const server = new McpServer({ name: 'modern-loopback', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.registerTool('echo', { description: 'Says the text back.', inputSchema: z.object({ text: z.string() }) }, ({ text }, ctx) => {
      calls.push({ tool: 'echo', ...trace(ctx.mcpReq._meta) });
      return { content: [{ type: 'text', text: `echo: ${text}` }] };
    });
    server.registerTool(
      'book_room',
      { description: 'Books a room; asks who it is for.', inputSchema: z.object({ room: z.string() }), annotations: { readOnlyHint: false, destructiveHint: false } },
      ({ room }, ctx) => {
        const responses = ctx.mcpReq.inputResponses;
        const view = inputResponse(responses, 'guest');
        const state = ctx.mcpReq.requestState();
        calls.push({ tool: 'book_room', ...(typeof state === 'string' ? { requestState: state } : {}), ...(view.kind === 'elicit' ? { answered: view.action } : {}), ...trace(ctx.mcpReq._meta) });
        if (view.kind === 'elicit' && view.action !== 'accept') return { content: [{ type: 'text', text: `not booked: the person answered ${view.action}` }], isError: true };
        const guest = acceptedContent<{ who?: unknown; nights?: unknown }>(responses, 'guest');
        if (guest === undefined || typeof guest.who !== 'string') {
          minted += 1;
          return inputRequired({
            inputRequests: {
              guest: inputRequired.elicit({
                message: `Who is room ${room} for?`,
                requestedSchema: {
                  type: 'object',
                  properties: { who: { type: 'string', title: 'Guest name', default: 'a guest' }, nights: { type: 'integer', title: 'Nights', default: 1, minimum: 1 } },
                  required: ['who'],
                },
              }),
            },
            requestState: `booking-${room}-${minted}`,
          });
        }
        const nights = typeof guest.nights === 'number' ? guest.nights : 1;
        return { content: [{ type: 'text', text: `booked ${room} for ${guest.who} (${nights} night${nights === 1 ? '' : 's'})` }] };
      },
    );
    return server;
  };
  const handler = createMcpHandler(factory, { legacy });
  const server = http.createServer(toNodeHandler(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
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
