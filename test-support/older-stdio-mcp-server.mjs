// A real 2025 MCP server over stdio (the SDK 1.x low-level Server) that takes `server/discover`, the
// 2026-07-28 probe, badly, as some servers built on other SDKs do:
//   --on-discover exit    exits at once (a server that ends on any request before `initialize`)
//   --on-discover silent  never answers it (a server that ignores requests it does not know)
// Either way it speaks 2025-11-25 after that; `whoami` answers its pid (to tell processes apart).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const i = process.argv.indexOf('--on-discover');
const onDiscover = i === -1 ? 'exit' : process.argv[i + 1];
const server = new Server({ name: 'older-server', version: '1.0.0' }, { capabilities: { tools: {} } });
server.fallbackRequestHandler = async (request) => {
  if (request.method !== 'server/discover') throw new Error(`unknown method ${request.method}`);
  process.stderr.write(`older-server: asked ${request.method}, ${onDiscover === 'exit' ? 'exiting' : 'not answering'}\n`);
  if (onDiscover === 'exit') process.exit(2);
  return new Promise(() => undefined);
};
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'whoami', description: 'Answers its pid', inputSchema: { type: 'object', properties: {} } }] }));
server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: `pid ${process.pid}` }] }));
await server.connect(new StdioServerTransport());
