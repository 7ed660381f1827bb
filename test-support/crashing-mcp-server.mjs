// A real MCP server over stdio (built with the SDK) that dies mid-run: `crash` exits the process
// before answering; `echo` answers its text, and exits the same way when the text is "crash" (a
// server dying part-way through a stream of calls). Used to prove a crashing server ends in a clear,
// recorded outcome.
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'crashing-server', version: '1.0.0' });
server.registerTool('ping', { description: 'Answers pong', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
server.registerTool('crash', { description: 'Exits the server process', inputSchema: {} }, async () => {
  process.stderr.write('crashing-server: fatal: simulated crash\n');
  process.exit(3);
});
server.registerTool('echo', { description: 'Answers its text; exits on "crash"', inputSchema: { text: z.string() } }, async ({ text }) => {
  if (text === 'crash') {
    process.stderr.write('crashing-server: fatal: simulated crash\n');
    process.exit(3);
  }
  return { content: [{ type: 'text', text }] };
});
await server.connect(new StdioServerTransport());
