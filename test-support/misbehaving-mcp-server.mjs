// A real MCP server over stdio (the SDK's low-level Server) that misbehaves on request, to prove
// each misbehaviour ends in a clear message rather than a timeout or a stack overflow:
//   --banner TEXT     prints TEXT (a console.log banner) on stdout before speaking MCP
//   --list-delay MS   answers tools/list only after MS milliseconds
//   tool `deep`       returns a result nested 100,000 levels deep
//   tool `flood`      answers with one 200 MB line, written lazily as stdout takes it
//   tool `refuse`     throws (the SDK answers a JSON-RPC error -32603 with the thrown message)
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
};
const banner = arg('--banner');
const listDelay = Number(arg('--list-delay') ?? 0);

if (banner !== undefined) console.log(banner);

const server = new Server({ name: 'misbehaving-server', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => {
  if (listDelay > 0) await new Promise((resolve) => setTimeout(resolve, listDelay));
  return {
    tools: [
      { name: 'ping', description: 'Answers pong', inputSchema: { type: 'object', properties: {} } },
      { name: 'deep', description: 'Returns a result nested 100,000 levels deep', inputSchema: { type: 'object', properties: {} } },
      { name: 'flood', description: 'Answers with a 200 MB line', inputSchema: { type: 'object', properties: {} } },
      { name: 'refuse', description: 'Throws: the disk is full', inputSchema: { type: 'object', properties: {} } },
    ],
  };
});
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (request.params.name === 'deep') {
    // Sent as raw text: the SDK's serialiser would itself overflow on the nested value.
    return { content: [], structuredContent: { nested: '__DEEP__' } };
  }
  if (request.params.name === 'refuse') throw new Error('the disk is full');
  if (request.params.name === 'flood') return { content: [{ type: 'text', text: '__FLOOD__' }] };
  return { content: [{ type: 'text', text: 'pong' }] };
});

// The deep result is spliced into the serialised message, as a server with its own serialiser would send it.
const transport = new StdioServerTransport();
const send = transport.send.bind(transport);
transport.send = async (message) => {
  const text = JSON.stringify(message);
  if (text.includes('"__FLOOD__"')) return flood(text);
  if (!text.includes('"__DEEP__"')) return send(message);
  const depth = 100_000;
  process.stdout.write(`${text.replace('"__DEEP__"', '['.repeat(depth) + ']'.repeat(depth))}\n`);
};
await server.connect(transport);

/** The answer with its text grown to 200 MB as stdout drains; ends when the client stops reading. */
async function flood(text) {
  const [head, tail] = text.split('__FLOOD__');
  const chunk = 'x'.repeat(64 * 1024);
  process.stdout.write(head);
  for (let written = 0; written < 200 * 1024 * 1024 && !process.stdout.destroyed; written += chunk.length) {
    if (!process.stdout.write(chunk)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
  process.stdout.write(`${tail}\n`);
}
