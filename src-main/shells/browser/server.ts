import fs from 'node:fs';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket, type RawData } from 'ws';
import type { PushFrame, ResponseFrame } from '@shared/contracts/host-api';
import { LAUNCH_PATH, LaunchExchangeRequest, TOKEN_REFUSED_CLOSE, WS_PATH, WS_PROTOCOL, WS_REFUSAL_PROTOCOL, type LaunchExchangeResponse } from '@shared/contracts/bridge';
import type { Host, HostSession } from '../../composition/host-types';
import {
  contentSecurityPolicy,
  isAllowedHost,
  isAllowedOrigin,
  isValidToken,
  newToken,
  offeredProtocols,
  tokenFromProtocols,
  tokensEqual,
} from './request-guard';
import { LaunchCodes } from './launch-codes';
import { lookupStatic } from './static-files';

/**
 * The browser-run shell's transport: the built renderer over HTTP and the host API over one
 * WebSocket at /api, on 127.0.0.1 only. The token travels as a WebSocket subprotocol
 * (see src-shared/contracts/bridge.ts); Host and Origin are checked before anything else. A browser
 * is given a one-time launch link instead, which the page exchanges for the token at LAUNCH_PATH.
 */

export interface BrowserServerOptions {
  host: Host;
  /** The built renderer (out/renderer). */
  staticDir: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** The session secret (the data folder's: session-token.ts); generated when absent. Must match /^[A-Za-z0-9_-]{16,128}$/. */
  token?: string;
  /** Largest accepted WebSocket message, in bytes. Default 1 MiB. */
  maxMessageBytes?: number;
  /** How long a launch link stays good unused. Default two minutes. */
  launchTtlMs?: number;
}

export interface BrowserServer {
  /**
   * `http://127.0.0.1:PORT/#token=…`, for scripts that asked for the token (`--print-url-json`).
   * Never put it on a command line (other local users can read those): use `launchUrl()`.
   */
  url: string;
  /** A fresh one-time link `http://127.0.0.1:PORT/#launch=<code>`: what a browser is opened on. */
  launchUrl(): string;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  port: number;
  token: string;
  /** Closes every WebSocket (each detaches from the host) and the HTTP server. Does not close the host. */
  close(): Promise<void>;
}

const DEFAULT_MAX_MESSAGE = 1024 * 1024;

export async function startBrowserServer(options: BrowserServerOptions): Promise<BrowserServer> {
  const token = options.token ?? newToken();
  if (!isValidToken(token)) throw new Error('The server token must be 16–128 base64url characters');
  let root: string;
  try {
    root = fs.realpathSync(options.staticDir);
  } catch {
    throw new Error(`The renderer folder ${options.staticDir} does not exist: build it first (npm run build)`);
  }
  const { host } = options;
  const launchCodes = new LaunchCodes(token, { ttlMs: options.launchTtlMs });
  let port = 0; // known once listening; no request can arrive before that

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE,
    perMessageDeflate: false,
    // The upgrade was already refused unless WS_PROTOCOL was offered with a valid token.
    handleProtocols: (protocols) => (protocols.has(WS_PROTOCOL) ? WS_PROTOCOL : false),
  });
  // Our own page whose token is refused, told so (bridge.ts WS_REFUSAL_PROTOCOL): nothing is attached.
  const refusals = new WebSocketServer({
    noServer: true,
    maxPayload: 1024,
    perMessageDeflate: false,
    handleProtocols: () => WS_REFUSAL_PROTOCOL,
  });

  const server = http.createServer((request, response) => {
    if (pathOf(request.url) === LAUNCH_PATH) exchangeLaunchCode(request, response, port, launchCodes);
    else serveHttp(request, response, root, port);
  });

  server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const refusal = upgradeRefusal(request, port, token);
    if (refusal?.status === 401 && offeredProtocols(request.headers['sec-websocket-protocol']).includes(WS_REFUSAL_PROTOCOL)) {
      refusals.handleUpgrade(request, socket, head, (ws) => {
        ws.on('error', () => undefined);
        ws.close(TOKEN_REFUSED_CLOSE, 'token refused');
      });
      return;
    }
    if (refusal) {
      refuseUpgrade(socket, refusal);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => attachSession(ws, host));
  });
  // A malformed request line or header: answer 400 instead of letting it surface as an error.
  server.on('clientError', (_error, socket: Duplex) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  port = await listen(server, options.port ?? 0);
  const origin = `http://127.0.0.1:${port}`;

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      for (const client of [...wss.clients, ...refusals.clients]) client.terminate();
      wss.close();
      refusals.close();
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };

  const launchUrl = () => `${origin}/#launch=${launchCodes.issue()}`;
  return { url: `${origin}/#token=${token}`, launchUrl, origin, port, token, close };
}

function listen(server: http.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    // The cause keeps its code (EADDRINUSE): the shell tells a taken remembered port apart.
    const onError = (error: Error) => reject(Object.assign(new Error(`Cannot listen on 127.0.0.1:${port}: ${error.message}`), { code: (error as NodeJS.ErrnoException).code, cause: error }));
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('The server has no TCP address'));
      else resolve(address.port);
    });
  });
}

interface Refusal {
  status: 400 | 401 | 403 | 404;
  reason: string;
}

/** Why an upgrade must be refused, or null. Host first (DNS rebinding), then Origin, path, token. */
function upgradeRefusal(request: http.IncomingMessage, port: number, token: string): Refusal | null {
  if (!isAllowedHost(request.headers.host, port)) return { status: 403, reason: 'Forbidden' };
  if (!isAllowedOrigin(request.headers.origin, port)) return { status: 403, reason: 'Forbidden' };
  if (pathOf(request.url) !== WS_PATH) return { status: 404, reason: 'Not Found' };
  const offered = tokenFromProtocols(offeredProtocols(request.headers['sec-websocket-protocol']));
  if (offered === null || !tokensEqual(offered, token)) return { status: 401, reason: 'Unauthorized' };
  return null;
}

function refuseUpgrade(socket: Duplex, refusal: Refusal): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.once('finish', () => socket.destroy());
  socket.end(`HTTP/1.1 ${refusal.status} ${refusal.reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

function pathOf(url: string | undefined): string | null {
  try {
    return new URL(url ?? '', 'http://127.0.0.1').pathname;
  } catch {
    return null;
  }
}

function serveHttp(request: http.IncomingMessage, response: http.ServerResponse, root: string, port: number): void {
  const send = (status: number, body: string, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...securityHeaders(port), ...headers });
    response.end(request.method === 'HEAD' ? undefined : body);
  };
  if (!isAllowedHost(request.headers.host, port)) return send(403, 'Forbidden');
  if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, 'Method Not Allowed', { Allow: 'GET, HEAD' });
  const pathname = pathOf(request.url);
  if (pathname === null) return send(400, 'Bad Request');
  if (pathname === WS_PATH) return send(426, 'Upgrade Required', { Upgrade: 'websocket' });
  const found = lookupStatic(root, pathname);
  if (found.kind === 'bad_request') return send(400, 'Bad Request');
  if (found.kind === 'not_found') return send(404, 'Not Found');
  fs.readFile(found.file, (error, body) => {
    if (error) return send(404, 'Not Found');
    response.writeHead(200, {
      'Content-Type': found.contentType,
      'Content-Length': String(body.length),
      'Cache-Control': found.cacheControl,
      ...securityHeaders(port),
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  });
}

const MAX_LAUNCH_BODY = 1024;

/**
 * POST LAUNCH_PATH {"code"}: one launch code → the session token, once. Host and Origin are
 * checked as for the WebSocket (a foreign page cannot even spend a code), and only a JSON body is
 * read, which a cross-origin form cannot send without a preflight.
 */
function exchangeLaunchCode(request: http.IncomingMessage, response: http.ServerResponse, port: number, codes: LaunchCodes): void {
  const answer = (status: number, body: LaunchExchangeResponse, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...securityHeaders(port), ...headers });
    response.end(JSON.stringify(body));
  };
  const refuse = (status: number, code: 'bad_request' | 'forbidden', message: string, headers: Record<string, string> = {}) =>
    answer(status, { ok: false, error: { code, message } }, headers);
  if (!isAllowedHost(request.headers.host, port)) return refuse(403, 'forbidden', 'Only the Steward page itself may use a launch link');
  if (request.method !== 'POST') return refuse(405, 'bad_request', 'Use POST', { Allow: 'POST' });
  if (!isAllowedOrigin(request.headers.origin, port)) return refuse(403, 'forbidden', 'Only the Steward page itself may use a launch link');
  if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) return refuse(415, 'bad_request', 'The body must be JSON');

  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  request.on('data', (chunk: Buffer) => {
    if (refused) return;
    size += chunk.length;
    if (size > MAX_LAUNCH_BODY) {
      refused = true;
      refuse(413, 'bad_request', 'The request is too large', { Connection: 'close' });
      request.resume();
      return;
    }
    chunks.push(chunk);
  });
  request.on('error', () => response.destroy());
  request.on('end', () => {
    if (refused) return;
    let json: unknown;
    try {
      json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return refuse(400, 'bad_request', 'The body is not JSON');
    }
    const parsed = LaunchExchangeRequest.safeParse(json);
    if (!parsed.success) return refuse(400, 'bad_request', 'The body is not a launch code');
    const redemption = codes.redeem(parsed.data.code);
    if (redemption.kind === 'token') return answer(200, { ok: true, token: redemption.token });
    answer(redemption.code === 'launch_unknown' ? 404 : 410, { ok: false, error: { code: redemption.code, message: redemption.message } });
  });
}

function securityHeaders(port: number): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(port),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

/** One WebSocket = one HostSession. Every text message is a request frame; every request gets one response. */
function attachSession(ws: WebSocket, host: Host): void {
  const send = (frame: ResponseFrame | PushFrame) => {
    // ws queues while the socket is slow; nothing is dropped unless the socket is gone,
    // and then the events are still in the outbox for the next connection.
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
  };
  const session: HostSession = { id: randomUUID(), push: send };
  ws.on('message', (data: RawData, isBinary: boolean) => {
    if (isBinary) return send(badRequest(0, 'Binary messages are not part of the protocol'));
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawToString(data));
    } catch {
      return send(badRequest(0, 'The message is not valid JSON'));
    }
    host.handle(parsed, session).then(send, (error: unknown) => {
      // Host.handle promises never to throw; if it does anyway, the page still gets an answer.
      send({
        kind: 'response',
        id: requestIdOf(parsed),
        ok: false,
        error: { code: 'host_error', message: error instanceof Error ? error.message : String(error) },
      });
    });
  });
  // ws reports protocol violations (e.g. an oversized message) here and then closes with a code.
  ws.on('error', () => undefined);
  ws.on('close', () => host.detach(session));
}

function badRequest(id: number, message: string): ResponseFrame {
  return { kind: 'response', id, ok: false, error: { code: 'bad_request', message } };
}

function requestIdOf(value: unknown): number {
  if (typeof value === 'object' && value !== null && 'id' in value) {
    const { id } = value;
    if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) return id;
  }
  return 0;
}

function rawToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
