// A real MCP server over stdio (built with the SDK) whose tool list changes while it runs: calling
// `unlock` registers a new tool, and the SDK sends `notifications/tools/list_changed`. Used to prove
// the tool host re-lists when (and only when) a server announces a change.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'growing-server', version: '1.0.0' });
server.registerTool('unlock', { description: 'Adds the `opened` tool', inputSchema: {} }, async () => {
  server.registerTool('opened', { description: 'Appears after unlock', inputSchema: { note: z.string() } }, async ({ note }) => ({
    content: [{ type: 'text', text: `opened: ${note}` }],
  }));
  return { content: [{ type: 'text', text: 'unlocked' }] };
});
await server.connect(new StdioServerTransport());
