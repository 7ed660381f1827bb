import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { launchCodeFromHash, LaunchExchangeResponse, TOKEN_REFUSED_CLOSE, webSocketProtocols, WS_PROTOCOL, WS_REFUSAL_PROTOCOL, WS_TOKEN_PROTOCOL_PREFIX } from '@shared/contracts/bridge';
import { eventId, type RunEvent } from '@shared/contracts/events';
import { ClientFrame, ServerFrame, type EventsFrame, type ResponseFrame } from '@shared/contracts/host-api';
import type { Host, HostSession } from '../../composition/host-types';
import { startBrowserServer, type BrowserServer } from './server';

/**
 * Test double for the *transport* under test (not a model boundary): a host that echoes params,
 * pushes an event on request, and records sessions. The real host is covered by its own tests.
 */
class TransportEchoHostForTests implements Host {
  readonly detached: string[] = [];
  readonly sessions = new Map<string, HostSession>();
  closed = false;

  async handle(frame: unknown, session: HostSession): Promise<ResponseFrame> {
    this.sessions.set(session.id, session);
    const parsed = ClientFrame.safeParse(frame);
    if (!parsed.success) return { kind: 'response', id: 0, ok: false, error: { code: 'bad_request', message: 'not a request frame' } };
    const { id, method, params } = parsed.data;
    if (method === 'test.echo') return { kind: 'response', id, ok: true, result: { echoed: params, session: session.id } };
    if (method === 'test.push') {
      session.push({ kind: 'events', events: [sampleEvent(1), sampleEvent(2)] });
      return { kind: 'response', id, ok: true, result: { pushed: 2 } };
    }
    if (method === 'test.throw') throw new Error('the host broke its promise');
    return { kind: 'response', id, ok: false, error: { code: 'unknown_method', message: method } };
  }

  detach(session: HostSession): void {
    this.detached.push(session.id);
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/**
 * The frames the renderer accepts. Built as a plain union of `ServerFrame`'s options because zod 4
 * refuses `ServerFrame` itself at first parse (two options share the discriminator "response").
 */

const RUN = 'run-transport-test';
function sampleEvent(seq: number): RunEvent {
  return { type: 'round.started', id: eventId(RUN, seq), run_id: RUN, seq, ts: new Date(0).toISOString(), round: 0, proposer: 'student' };
}

interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw HTTP GET: `path` is sent as written (no URL normalization), `host` overrides the Host header. */
function get(port: number, requestPath: string, hostHeader?: string): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path: requestPath, method: 'GET', headers: hostHeader ? { host: hostHeader } : {} },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

type Connect = { kind: 'open'; ws: WebSocket } | { kind: 'refused'; status: number };

interface ConnectOptions {
  protocols?: string[];
  origin?: string | null;
  hostHeader?: string;
  path?: string;
}

function connect(server: BrowserServer, options: ConnectOptions = {}): Promise<Connect> {
  const protocols = options.protocols ?? webSocketProtocols(server.token);
  const origin = options.origin === undefined ? server.origin : options.origin;
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}${options.path ?? '/api'}`, protocols, {
    ...(origin === null ? {} : { origin }),
    headers: options.hostHeader ? { host: options.hostHeader } : {},
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ kind: 'open', ws }));
    ws.once('unexpected-response', (_request, response) => {
      resolve({ kind: 'refused', status: response.statusCode ?? 0 });
      ws.terminate();
    });
    ws.once('error', reject);
  });
}

/** Collects every frame the server sends, validated with the contract schema as the renderer would. */
function frames(ws: WebSocket): { all: ServerFrame[]; next(predicate: (frame: ServerFrame) => boolean): Promise<ServerFrame> } {
  const all: ServerFrame[] = [];
  const waiters: { predicate: (frame: ServerFrame) => boolean; resolve: (frame: ServerFrame) => void }[] = [];
  ws.on('message', (data: Buffer) => {
    const frame = ServerFrame.parse(JSON.parse(data.toString('utf8')));
    all.push(frame);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(frame)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(frame);
      }
    }
  });
  return {
    all,
    next: (predicate) =>
      new Promise((resolve) => {
        const found = all.find(predicate);
        if (found) resolve(found);
        else waiters.push({ predicate, resolve });
      }),
  };
}

const responseTo = (id: number) => (frame: ServerFrame) => frame.kind === 'response' && frame.id === id;

function closed(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => ws.once('close', (code: number) => resolve(code)));
}

describe('browser-run server', () => {
  let dir: string;
  let staticDir: string;
  let host: TransportEchoHostForTests;
  let server: BrowserServer;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-server-'));
    staticDir = path.join(dir, 'renderer');
    fs.mkdirSync(path.join(staticDir, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>Steward</title><div id="root"></div>');
    fs.writeFileSync(path.join(staticDir, 'assets', 'index-abc123.js'), 'console.log("app")');
    fs.writeFileSync(path.join(staticDir, 'assets', 'index-abc123.css'), 'body{}');
    fs.writeFileSync(path.join(dir, 'secret.txt'), 'TOP SECRET');
    host = new TransportEchoHostForTests();
    server = await startBrowserServer({ host, staticDir });
  });

  afterEach(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('listens on 127.0.0.1 and hands out a URL carrying the token in its fragment', () => {
    expect(server.port).toBeGreaterThan(0);
    expect(server.origin).toBe(`http://127.0.0.1:${server.port}`);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/#token=${server.token}`);
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('every launch gets a different token', async () => {
    const other = await startBrowserServer({ host, staticDir });
    expect(other.token).not.toBe(server.token);
    await other.close();
  });

  it('serves index.html at / uncached, with a CSP that allows only its own WebSocket', async () => {
    const response = await get(server.port, '/');
    expect(response.status).toBe(200);
    expect(response.body).toContain('<div id="root">');
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    const csp = response.headers['content-security-policy'];
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${server.port}`);
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('serves built assets with their content types', async () => {
    const script = await get(server.port, '/assets/index-abc123.js');
    expect(script.status).toBe(200);
    expect(script.body).toBe('console.log("app")');
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    const style = await get(server.port, '/assets/index-abc123.css');
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await get(server.port, '/assets/missing.js')).status).toBe(404);
  });

  it('never serves a file outside the renderer folder', async () => {
    for (const attempt of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/..%5csecret.txt', '/%00', '/%E0%A4%A']) {
      const response = await get(server.port, attempt);
      expect([400, 404]).toContain(response.status);
      expect(response.body).not.toContain('TOP SECRET');
    }
  });

  it('refuses any HTTP request whose Host is not its own (DNS rebinding)', async () => {
    const rebound = await get(server.port, '/', `evil.example:${server.port}`);
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain('root');
    expect((await get(server.port, '/assets/index-abc123.js', `127.0.0.1:${server.port + 1}`)).status).toBe(403);
    expect((await get(server.port, '/', `localhost:${server.port}`)).status).toBe(200);
  });

  it('refuses the WebSocket without a token', async () => {
    expect(await connect(server, { protocols: [WS_PROTOCOL] })).toEqual({ kind: 'refused', status: 401 });
    expect(await connect(server, { protocols: [] })).toEqual({ kind: 'refused', status: 401 });
    expect(host.sessions.size).toBe(0);
  });

  it('refuses the WebSocket with a wrong token', async () => {
    const wrong = server.token.slice(0, -1) + (server.token.endsWith('A') ? 'B' : 'A');
    expect(await connect(server, { protocols: webSocketProtocols(wrong) })).toEqual({ kind: 'refused', status: 401 });
    expect(await connect(server, { protocols: [`${WS_TOKEN_PROTOCOL_PREFIX}${server.token}`] })).toEqual({ kind: 'refused', status: 401 });
  });

  it('tells its own page that offers the refusal protocol that its token is refused: close 4401, no session, no answer', async () => {
    const wrong = server.token.slice(0, -1) + (server.token.endsWith('A') ? 'B' : 'A');
    for (const protocols of [[...webSocketProtocols(wrong), WS_REFUSAL_PROTOCOL], [WS_REFUSAL_PROTOCOL]]) {
      const opened = await connect(server, { protocols });
      if (opened.kind !== 'open') throw new Error(`expected the handshake to complete, got ${JSON.stringify(opened)}`);
      expect(opened.ws.protocol).toBe(WS_REFUSAL_PROTOCOL);
      const received: string[] = [];
      opened.ws.on('message', (data: Buffer) => received.push(data.toString('utf8')));
      const code = closed(opened.ws);
      opened.ws.send(JSON.stringify({ kind: 'request', id: 1, method: 'test.echo', params: {} }));
      expect(await code).toBe(TOKEN_REFUSED_CLOSE);
      expect(received).toEqual([]);
    }
    expect(host.sessions.size).toBe(0);
  });

  it('the refusal protocol changes nothing for the right token, nor for a foreign origin (still 403)', async () => {
    const right = await connect(server, { protocols: [...webSocketProtocols(server.token), WS_REFUSAL_PROTOCOL] });
    if (right.kind !== 'open') throw new Error('expected the socket to open');
    expect(right.ws.protocol).toBe(WS_PROTOCOL);
    right.ws.close();
    expect(await connect(server, { protocols: [WS_REFUSAL_PROTOCOL], origin: 'http://evil.example' })).toEqual({ kind: 'refused', status: 403 });
    expect(await connect(server, { protocols: [WS_REFUSAL_PROTOCOL], hostHeader: `evil.example:${server.port}` })).toEqual({ kind: 'refused', status: 403 });
  });

  it('refuses the token in a query parameter: only the subprotocol carries it', async () => {
    expect(await connect(server, { protocols: [WS_PROTOCOL], path: `/api?token=${server.token}` })).toEqual({ kind: 'refused', status: 401 });
  });

  it('refuses the WebSocket from a foreign or missing Origin, even with the right token', async () => {
    expect(await connect(server, { origin: 'http://evil.example' })).toEqual({ kind: 'refused', status: 403 });
    expect(await connect(server, { origin: `http://127.0.0.1:${server.port + 1}` })).toEqual({ kind: 'refused', status: 403 });
    expect(await connect(server, { origin: `https://127.0.0.1:${server.port}` })).toEqual({ kind: 'refused', status: 403 });
    expect(await connect(server, { origin: null })).toEqual({ kind: 'refused', status: 403 });
  });

  it('refuses the WebSocket with a foreign Host, even with the right token and origin', async () => {
    expect(await connect(server, { hostHeader: `evil.example:${server.port}` })).toEqual({ kind: 'refused', status: 403 });
  });

  it('accepts the right token from its own origin (127.0.0.1 or localhost) and names the protocol', async () => {
    const viaIp = await connect(server);
    expect(viaIp.kind).toBe('open');
    if (viaIp.kind === 'open') {
      expect(viaIp.ws.protocol).toBe(WS_PROTOCOL);
      viaIp.ws.close();
    }
    const viaName = await connect(server, { origin: `http://localhost:${server.port}`, hostHeader: `localhost:${server.port}` });
    expect(viaName.kind).toBe('open');
    if (viaName.kind === 'open') viaName.ws.close();
  });

  it('round-trips a request through the host and answers each id', async () => {
    const opened = await connect(server);
    if (opened.kind !== 'open') throw new Error('expected the socket to open');
    const inbox = frames(opened.ws);
    opened.ws.send(JSON.stringify({ kind: 'request', id: 7, method: 'test.echo', params: { hello: 'host' } }));
    opened.ws.send(JSON.stringify({ kind: 'request', id: 8, method: 'no.such', params: {} }));
    const echo = await inbox.next(responseTo(7));
    expect(echo).toMatchObject({ kind: 'response', id: 7, ok: true, result: { echoed: { hello: 'host' } } });
    const unknown = await inbox.next(responseTo(8));
    expect(unknown).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    opened.ws.close();
  });

  it('pushes the host events to the session that asked', async () => {
    const opened = await connect(server);
    if (opened.kind !== 'open') throw new Error('expected the socket to open');
    const inbox = frames(opened.ws);
    opened.ws.send(JSON.stringify({ kind: 'request', id: 1, method: 'test.push', params: {} }));
    const pushed = (await inbox.next((frame) => frame.kind === 'events')) as EventsFrame;
    expect(pushed.events.map((event) => event.id)).toEqual([eventId(RUN, 1), eventId(RUN, 2)]);
    await inbox.next(responseTo(1));
    opened.ws.close();
  });

  it('answers malformed JSON and binary messages with a bad_request frame and keeps the socket open', async () => {
    const opened = await connect(server);
    if (opened.kind !== 'open') throw new Error('expected the socket to open');
    const inbox = frames(opened.ws);
    opened.ws.send('{"kind": "request", "id": 3,');
    const error = await inbox.next(responseTo(0));
    expect(error).toEqual({ kind: 'response', id: 0, ok: false, error: { code: 'bad_request', message: 'The message is not valid JSON' } });
    opened.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    await inbox.next((frame) => frame !== error && frame.kind === 'response' && frame.id === 0);
    opened.ws.send(JSON.stringify({ kind: 'request', id: 4, method: 'test.echo', params: 1 }));
    expect(await inbox.next(responseTo(4))).toMatchObject({ ok: true });
    opened.ws.close();
  });

  it('turns a host that throws into a host_error response for that request', async () => {
    const opened = await connect(server);
    if (opened.kind !== 'open') throw new Error('expected the socket to open');
    const inbox = frames(opened.ws);
    opened.ws.send(JSON.stringify({ kind: 'request', id: 5, method: 'test.throw', params: {} }));
    expect(await inbox.next(responseTo(5))).toEqual({
      kind: 'response',
      id: 5,
      ok: false,
      error: { code: 'host_error', message: 'the host broke its promise' },
    });
    opened.ws.close();
  });

  it('detaches the session from the host when the socket closes', async () => {
    const opened = await connect(server);
    if (opened.kind !== 'open') throw new Error('expected the socket to open');
    const inbox = frames(opened.ws);
    opened.ws.send(JSON.stringify({ kind: 'request', id: 1, method: 'test.echo', params: {} }));
    const response = await inbox.next(responseTo(1));
    const sessionId = response.kind === 'response' && response.ok ? (response.result as { session: string }).session : '';
    expect(host.detached).toEqual([]);
    const done = closed(opened.ws);
    opened.ws.close();
    await done;
    await expect.poll(() => host.detached).toEqual([sessionId]);
  });

  it('closes a connection whose message exceeds the size cap (1009) and detaches it', async () => {
    await server.close();
    server = await startBrowserServer({ host, staticDir, maxMessageBytes: 1024 });
    const opened = await connect(server);
    if (opened.kind !== 'open') throw new Error('expected the socket to open');
    const done = closed(opened.ws);
    opened.ws.send(JSON.stringify({ kind: 'request', id: 1, method: 'test.echo', params: 'x'.repeat(2048) }));
    expect(await done).toBe(1009);
    await expect.poll(() => host.detached.length).toBe(1);
  });

  it('closing the server closes live sockets and detaches them, without closing the host', async () => {
    const opened = await connect(server);
    if (opened.kind !== 'open') throw new Error('expected the socket to open');
    const done = closed(opened.ws);
    await server.close();
    await done;
    expect(host.detached).toHaveLength(1);
    expect(host.closed).toBe(false);
  });

  it('refuses a token that cannot travel as a subprotocol', async () => {
    await expect(startBrowserServer({ host, staticDir, token: 'has spaces and is long enough' })).rejects.toThrow(/base64url/);
  });

  describe('one-time launch link', () => {
    const codeOf = (link: string) => launchCodeFromHash(new URL(link).hash) ?? '';

    it('hands out launch links that carry a one-time code and never the session token', () => {
      const link = server.launchUrl();
      expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/#launch=[A-Za-z0-9_-]{43}$`));
      expect(link).not.toContain(server.token);
      expect(server.launchUrl()).not.toBe(link);
    });

    it('exchanges a code for the session token once; the reused code is refused with a message naming what to do', async () => {
      const code = codeOf(server.launchUrl());
      const first = await exchange(server.port, { code });
      expect(first.status).toBe(200);
      expect(first.headers['cache-control']).toBe('no-store');
      expect(LaunchExchangeResponse.parse(JSON.parse(first.body))).toEqual({ ok: true, token: server.token });

      const second = await exchange(server.port, { code });
      expect(second.status).toBe(410);
      const refused = LaunchExchangeResponse.parse(JSON.parse(second.body));
      expect(refused).toMatchObject({ ok: false, error: { code: 'launch_used' } });
      expect(refused.ok === false && refused.error.message).toMatch(/already used.*npm start/s);
    });

    it('the token from the exchange opens the WebSocket; the launch code itself never does', async () => {
      const code = codeOf(server.launchUrl());
      expect(await connect(server, { protocols: webSocketProtocols(code) })).toEqual({ kind: 'refused', status: 401 });
      const body = LaunchExchangeResponse.parse(JSON.parse((await exchange(server.port, { code })).body));
      if (!body.ok) throw new Error(body.error.message);
      const result = await connect(server, { protocols: webSocketProtocols(body.token) });
      expect(result.kind).toBe('open');
      if (result.kind === 'open') result.ws.close();
    });

    it('refuses the exchange from a foreign or missing Origin, or a foreign Host, without spending the code', async () => {
      const code = codeOf(server.launchUrl());
      expect((await exchange(server.port, { code }, { origin: 'http://evil.example' })).status).toBe(403);
      expect((await exchange(server.port, { code }, { origin: null })).status).toBe(403);
      expect((await exchange(server.port, { code }, { hostHeader: `evil.example:${server.port}` })).status).toBe(403);
      expect((await exchange(server.port, { code })).status).toBe(200);
    });

    it('refuses a GET, a non-JSON body and an oversized body', async () => {
      expect((await get(server.port, '/launch')).status).toBe(405);
      expect((await exchange(server.port, 'code=abc', { contentType: 'application/x-www-form-urlencoded' })).status).toBe(415);
      expect((await exchange(server.port, { code: 'x'.repeat(10_000) })).status).toBe(413);
      expect((await exchange(server.port, { code: 'short' })).status).toBe(400);
    });
  });
});

interface ExchangeOptions {
  origin?: string | null;
  hostHeader?: string;
  contentType?: string;
}

/** A POST to the launch endpoint as the page makes it (Origin and JSON by default). */
function exchange(port: number, body: unknown, options: ExchangeOptions = {}): Promise<HttpResult> {
  const origin = options.origin === undefined ? `http://127.0.0.1:${port}` : options.origin;
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/launch',
        method: 'POST',
        headers: {
          'content-type': options.contentType ?? 'application/json',
          ...(origin === null ? {} : { origin }),
          ...(options.hostHeader ? { host: options.hostHeader } : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    // The server may answer (413) and close before the whole body is written.
    request.on('error', reject);
    request.end(payload);
  });
}
