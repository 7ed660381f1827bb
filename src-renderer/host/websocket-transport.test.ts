import { afterEach, describe, expect, it } from 'vitest';
// eslint-disable-next-line no-restricted-imports -- test only: Node 20 has no global WebSocket; ws provides the server and a WHATWG-compatible client.
import { WebSocket as NodeWebSocket, WebSocketServer } from 'ws';
import { WS_PROTOCOL, WS_TOKEN_PROTOCOL_PREFIX } from '@shared/contracts/bridge';
import { createHostClient, type HostClient } from './host-client';
import { createWebSocketTransport } from './websocket-transport';
import { hostSocketProtocols } from './access-token';
import type { ConnectionState } from './transport';

const TOKEN = 'tok_ABCDEFGHIJKLMNOP1234';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A real WebSocket server on loopback that answers host.info and remembers the offered subprotocols. */
async function startServer() {
  const offered: string[][] = [];
  const server = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    handleProtocols: (protocols) => (protocols.has(WS_PROTOCOL) ? WS_PROTOCOL : false),
  });
  server.on('connection', (socket, req) => {
    offered.push(String(req.headers['sec-websocket-protocol'] ?? '').split(/,\s*/));
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { id: number; method: string };
      const result = { app: 'steward', version: '0.1.0', shell: 'browser', demo: true };
      socket.send(JSON.stringify({ kind: 'response', id: frame.id, ok: true, result }));
    });
  });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { server, offered, url: `ws://127.0.0.1:${address.port}/api` };
}

function clientFor(url: string): { client: HostClient; states: ConnectionState[]; waitFor: (s: ConnectionState, nth?: number) => Promise<void> } {
  const transport = createWebSocketTransport({
    url,
    protocols: () => hostSocketProtocols(TOKEN),
    minDelayMs: 5,
    maxDelayMs: 20,
    createSocket: (u, p) => new NodeWebSocket(u, p) as unknown as WebSocket,
  });
  const client = createHostClient(transport);
  const states: ConnectionState[] = [];
  const waiters: Array<() => void> = [];
  client.onState((s) => {
    states.push(s);
    for (const w of waiters.splice(0)) w();
  });
  cleanups.push(() => client.close());
  const waitFor = async (s: ConnectionState, nth = 1) => {
    while (states.filter((x) => x === s).length < nth) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { client, states, waitFor };
}

describe('WebSocket transport', () => {
  it('connects with the token as a subprotocol and carries requests and responses', async () => {
    const { offered, url } = await startServer();
    const { client, waitFor } = clientFor(url);
    await waitFor('open');
    await expect(client.request('host.info', {})).resolves.toMatchObject({ app: 'steward', shell: 'browser' });
    expect(offered[0]).toEqual([WS_PROTOCOL, `${WS_TOKEN_PROTOCOL_PREFIX}${TOKEN}`]);
    expect(offered[0]?.join(' ')).not.toContain('?');
  });

  it('reconnects after the host drops the connection', async () => {
    const { server, url } = await startServer();
    const { client, states, waitFor } = clientFor(url);
    await waitFor('open');
    for (const socket of server.clients) socket.terminate();
    await waitFor('open', 2);
    expect(states.slice(0, 4)).toEqual(['connecting', 'open', 'connecting', 'open']);
    await expect(client.request('host.info', {})).resolves.toMatchObject({ app: 'steward' });
  });

  it('closes the socket and refuses requests once the client is closed', async () => {
    const { server, url } = await startServer();
    const { client, states, waitFor } = clientFor(url);
    await waitFor('open');
    const [socket] = [...server.clients];
    const closedOnServer = new Promise<void>((resolve) => socket?.once('close', () => resolve()));
    client.close();
    await closedOnServer;
    expect(states.at(-1)).toBe('closed');
    await expect(client.request('host.info', {})).rejects.toMatchObject({ code: 'disconnected' });
  });
});
