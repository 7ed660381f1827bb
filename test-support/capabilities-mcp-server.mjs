// A real MCP server over stdio (the SDK's low-level Server) with the tools that exercise a client's
// capabilities and hygiene (src-main/mcp/*capabilities*.test.ts, tool-hygiene.test.ts):
//   app_panel        marked for the app only (_meta.ui.visibility ["app"]): a model must never see it
//   both_panel       marked for the model and the app
//   malformed        answers with a result that is not a CallToolResult (50 text blocks with numbers)
//   ticking          reports progress every `every_ms` for `ticks` ticks, then answers "ticked N"
//   wait_for_cancel  waits until the client cancels it (or `ms` passes); with --marker PATH it
//                    appends "started <requestId>" to PATH, then "cancelled <requestId> <reason>" when
//                    the cancellation arrives
//   roots            asks the client for its roots (roots/list) and answers them as JSON
//   echo_env         answers the environment variables it was started with, as JSON
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
};
const marker = arg('--marker');
const object = (properties = {}) => ({ type: 'object', properties });
const text = (t) => ({ content: [{ type: 'text', text: t }] });

const server = new Server({ name: 'capabilities-server', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: 'app_panel', description: 'Draws a panel in the app', inputSchema: object(), _meta: { ui: { visibility: ['app'] } } },
    { name: 'both_panel', description: 'Draws a panel; a model may call it', inputSchema: object(), _meta: { ui: { visibility: ['model', 'app'] } } },
    { name: 'malformed', description: 'Answers with a malformed result', inputSchema: object() },
    { name: 'ticking', description: 'Reports progress', inputSchema: object({ ticks: { type: 'number' }, every_ms: { type: 'number' } }) },
    { name: 'wait_for_cancel', description: 'Waits to be cancelled', inputSchema: object({ ms: { type: 'number' } }) },
    { name: 'roots', description: "Lists the client's roots", inputSchema: object() },
    { name: 'echo_env', description: 'Answers its environment', inputSchema: object() },
  ],
}));

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case 'malformed':
      return text('__MALFORMED__');
    case 'ticking': {
      const ticks = Number(args.ticks ?? 5);
      const token = request.params._meta?.progressToken;
      for (let i = 1; i <= ticks; i++) {
        await sleep(Number(args.every_ms ?? 100));
        if (token !== undefined) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: ticks, message: `step ${i} of ${ticks}` } });
        }
      }
      return text(`ticked ${ticks}${token === undefined ? ' (no progress token)' : ''}`);
    }
    case 'wait_for_cancel': {
      if (marker) appendFileSync(marker, `started ${String(extra.requestId)}\n`);
      extra.signal.addEventListener('abort', () => {
        if (marker) appendFileSync(marker, `cancelled ${String(extra.requestId)} ${String(extra.signal.reason ?? '')}\n`);
      });
      await sleep(Number(args.ms ?? 60_000), extra.signal);
      return text(extra.signal.aborted ? 'cancelled' : 'waited');
    }
    case 'roots': {
      const { roots } = await server.listRoots();
      return text(JSON.stringify(roots));
    }
    case 'echo_env':
      return text(JSON.stringify(process.env));
    default:
      return text(`ran ${request.params.name}`);
  }
});

// The malformed result is spliced into the serialised message: the SDK's server would refuse to send it.
const transport = new StdioServerTransport();
const send = transport.send.bind(transport);
transport.send = async (message) => {
  const line = JSON.stringify(message);
  if (!line.includes('"__MALFORMED__"')) return send(message);
  const blocks = Array.from({ length: 50 }, (_, i) => ({ type: 'text', text: i, note: 'x'.repeat(40) }));
  process.stdout.write(`${line.replace('[{"type":"text","text":"__MALFORMED__"}]', JSON.stringify(blocks))}\n`);
};
await server.connect(transport);
