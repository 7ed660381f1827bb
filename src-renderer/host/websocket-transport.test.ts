import { afterEach, describe, expect, it } from 'vitest';
// eslint-disable-next-line no-restricted-imports -- test only: Node 20 has no global WebSocket; ws provides the server and a WHATWG-compatible client.
import { WebSocket as NodeWebSocket, WebSocketServer } from 'ws';
import { TOKEN_REFUSED_CLOSE, WS_PROTOCOL, WS_REFUSAL_PROTOCOL, WS_TOKEN_PROTOCOL_PREFIX } from '@shared/contracts/bridge';
import { createHostClient, type HostClient } from './host-client';
import { createWebSocketTransport } from './websocket-transport';
import { hostSocketProtocols } from './access-token';
import type { ConnectionState, Transport } from './transport';

const TOKEN = 'tok_ABCDEFGHIJKLMNOP1234';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A real WebSocket server on loopback that answers host.info and remembers the offered subprotocols.
 * With `accepts`, it refuses other tokens as the browser-run host does (server.ts): the handshake
 * completes on WS_REFUSAL_PROTOCOL when the page offered it, then a TOKEN_REFUSED_CLOSE.
 */
async function startServer(accepts?: { token: string }) {
  const offered: string[][] = [];
  const tokenOf = (protocols: Set<string>) => [...protocols].find((p) => p.startsWith(WS_TOKEN_PROTOCOL_PREFIX))?.slice(WS_TOKEN_PROTOCOL_PREFIX.length);
  const server = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    handleProtocols: (protocols) => {
      if (accepts && tokenOf(protocols) !== accepts.token) return protocols.has(WS_REFUSAL_PROTOCOL) ? WS_REFUSAL_PROTOCOL : false;
      return protocols.has(WS_PROTOCOL) ? WS_PROTOCOL : false;
    },
  });
  server.on('connection', (socket, req) => {
    offered.push(String(req.headers['sec-websocket-protocol'] ?? '').split(/,\s*/));
    if (socket.protocol === WS_REFUSAL_PROTOCOL) {
      socket.close(TOKEN_REFUSED_CLOSE, 'token refused');
      return;
    }
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
  return { server, offered, url: `ws://127.0.0.1:${address.port}/api`, port: address.port };
}

function clientFor(url: string, token: () => string | null = () => TOKEN): { client: HostClient; transport: Transport; states: ConnectionState[]; waitFor: (s: ConnectionState, nth?: number) => Promise<void> } {
  const transport = createWebSocketTransport({
    url,
    protocols: () => hostSocketProtocols(token()),
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
  return { client, transport, states, waitFor };
}

describe('WebSocket transport', () => {
  it('connects with the token as a subprotocol and carries requests and responses', async () => {
    const { offered, url } = await startServer();
    const { client, waitFor } = clientFor(url);
    await waitFor('open');
    await expect(client.request('host.info', {})).resolves.toMatchObject({ app: 'steward', shell: 'browser' });
    expect(offered[0]).toEqual([WS_PROTOCOL, `${WS_TOKEN_PROTOCOL_PREFIX}${TOKEN}`, WS_REFUSAL_PROTOCOL]);
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

  it('finds its host again after the host is gone for a while and comes back on the same port (as after a restart)', async () => {
    const first = await startServer({ token: TOKEN });
    const { client, states, waitFor } = clientFor(first.url);
    await waitFor('open');
    for (const socket of first.server.clients) socket.terminate();
    await new Promise<void>((resolve) => first.server.close(() => resolve()));
    await waitFor('connecting', 2);
    // Several attempts fail while nothing listens; none of them is a refusal.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(states).not.toContain('refused');
    const again = new WebSocketServer({ host: '127.0.0.1', port: first.port, handleProtocols: (p) => (p.has(WS_PROTOCOL) ? WS_PROTOCOL : false) });
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of again.clients) socket.terminate();
          again.close(() => resolve());
        }),
    );
    again.on('connection', (socket) =>
      socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as { id: number };
        socket.send(JSON.stringify({ kind: 'response', id: frame.id, ok: true, result: { app: 'steward', version: '0.1.0', shell: 'browser', demo: true } }));
      }),
    );
    await waitFor('open', 2);
    await expect(client.request('host.info', {})).resolves.toMatchObject({ app: 'steward' });
  });

  it('a host that refuses the token (a new token, another data folder\'s host): the state is refused, never open, and it stops trying', async () => {
    const { offered, url } = await startServer({ token: 'another_folders_token_0123' });
    const { client, states, waitFor } = clientFor(url);
    await waitFor('refused');
    await new Promise((resolve) => setTimeout(resolve, 150)); // several backoff periods (5–20 ms)
    expect(states).toEqual(['connecting', 'refused']);
    expect(offered).toHaveLength(1);
    await expect(client.request('host.info', {})).rejects.toMatchObject({ code: 'disconnected' });
  });

  it('after a refusal, a new token stored and reconnect(): it connects with the new token', async () => {
    const NEW = 'the_new_token_from_a_link_01';
    const { offered, url } = await startServer({ token: NEW });
    let token: string | null = null;
    const { client, transport, states, waitFor } = clientFor(url, () => token);
    await waitFor('refused');
    expect(offered[0]).toEqual([WS_REFUSAL_PROTOCOL]);
    token = NEW;
    transport.reconnect?.();
    await waitFor('open');
    expect(states).toEqual(['connecting', 'refused', 'connecting', 'open']);
    await expect(client.request('host.info', {})).resolves.toMatchObject({ app: 'steward' });
  });

  it('a token stored while the first attempt is still connecting (a #token= link): reconnect() drops that attempt and connects with the token, never refused', async () => {
    const { url } = await startServer({ token: TOKEN });
    let token: string | null = null;
    const { client, transport, states, waitFor } = clientFor(url, () => token);
    // The client's first attempt is under way, made without a token; the page takes its link now.
    expect(states).toEqual(['connecting']);
    token = TOKEN;
    transport.reconnect?.();
    await waitFor('open');
    expect(states).not.toContain('refused');
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
