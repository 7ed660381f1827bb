// A real MCP server over stdio (built with the SDK) that dies mid-run: `crash` exits the process
// before answering. Used to prove a crashing server ends in a clear, recorded outcome.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'crashing-server', version: '1.0.0' });
server.registerTool('ping', { description: 'Answers pong', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
server.registerTool('crash', { description: 'Exits the server process', inputSchema: {} }, async () => {
  process.stderr.write('crashing-server: fatal: simulated crash\n');
  process.exit(3);
});
await server.connect(new StdioServerTransport());
