// A real MCP server over stdio on 2026-07-28, built with the SDK v2 server package (serveStdio: the
// opening exchange picks the revision). The stdio sibling of src-main/mcp/modern-loopback-server.ts:
//   `echo`       answers at once
//   `book_room`  asks who the room is for (an `input_required` result with a form and an opaque
//                requestState), then completes with the answer
//   `unlock`     adds the tool `opened`: the server announces the change to a `subscriptions/listen` stream
//   `flood`      answers with one stdout line past Steward's 8 MiB message bound
// Every call is written to stderr as `seen {json}` (what it got back: requestState, the answer, the
// trace context), for a test to read in the server's stderr tail.
//   --modern-only  refuse the 2025 handshake (a server that moved on entirely)
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { registerBookRoom } from './book-room.mjs';

const seen = (call) => process.stderr.write(`seen ${JSON.stringify(call)}\n`);
const traceOf = (meta) => (meta && typeof meta.traceparent === 'string' ? { traceparent: meta.traceparent } : {});
let minted = 0;

serveStdio(
  () => {
    const server = new McpServer({ name: 'modern-stdio', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    server.registerTool('echo', { description: 'Says the text back.', inputSchema: z.object({ text: z.string() }) }, ({ text }, ctx) => {
      seen({ tool: 'echo', ...traceOf(ctx.mcpReq._meta) });
      return { content: [{ type: 'text', text: `echo: ${text}` }] };
    });
    registerBookRoom(server, { seen, mint: () => (minted += 1) });
    server.registerTool('flood', { description: 'Answers with one line past 8 MiB.', inputSchema: z.object({}) }, () => ({ content: [{ type: 'text', text: 'x'.repeat(9 * 1024 * 1024) }] }));
    server.registerTool('unlock', { description: 'Adds the `opened` tool.', inputSchema: z.object({}) }, () => {
      seen({ tool: 'unlock' });
      server.registerTool('opened', { description: 'Appears after unlock.', inputSchema: z.object({ note: z.string() }) }, ({ note }) => ({ content: [{ type: 'text', text: `opened: ${note}` }] }));
      return { content: [{ type: 'text', text: 'unlocked' }] };
    });
    return server;
  },
  { legacy: process.argv.includes('--modern-only') ? 'reject' : 'serve' },
);
process.stderr.write('modern-stdio server ready\n');
