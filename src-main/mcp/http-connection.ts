import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpStartError, errorMessage } from './errors';
import { MAX_MCP_MESSAGE_BYTES, isAnswerCut, type AnswerTooLarge } from './answer-bound';
import { BoundedHttp } from './bounded-http';
import { pinnedMcpFetch, type RemoteEndpoint } from './remote-endpoint';
import type { RemoteAuth } from './oauth/oauth-fetch';
import { SignInRequiredError } from './oauth/keychain-oauth-provider';
import { newMcpClient } from './client-capabilities';
import { ServerConnection, type ConnectionTransport, type ConnectOptions } from './server-connection';

/**
 * A remote MCP server (issue 13): Streamable HTTP first; a server that answers the initialize POST
 * with a 4xx other than an auth refusal is an older HTTP+SSE server, reached over SSE instead (the
 * SDK's backwards-compatible client). The caller has already checked the endpoint against the
 * privacy policy; every request goes to its origin only. `headers` are resolved secrets: they go on
 * the wire and nowhere else (never into a message).
 */
export async function connectRemote(id: string, endpoint: RemoteEndpoint, headers: Readonly<Record<string, string>>, options: ConnectOptions, auth?: RemoteAuth): Promise<ServerConnection> {
  // Every answer is read through the bound (issue 27): a server cannot make Steward buffer more than
  // MAX_MCP_MESSAGE_BYTES of one message. A message cut on the server's own event stream belongs to
  // no call: the connection that gets it is told (see handshake).
  let streamCut: (error: AnswerTooLarge) => void = () => undefined;
  const bound = new BoundedHttp(MAX_MCP_MESSAGE_BYTES, (error) => streamCut(error));
  // OAuth (oauth/oauth-fetch.ts) wraps the pinned fetch: tokens go on the server's own requests only.
  const fetch = bound.fetch(auth ? auth(pinnedMcpFetch(endpoint)) : pinnedMcpFetch(endpoint));
  const requestInit = { headers: { ...headers } };
  const deadline = Date.now() + options.startTimeoutMs;
  const log = options.onLog;
  const streamable = bound.watch(new StreamableHTTPClientTransport(endpoint.url, { requestInit, fetch }));
  const first = await handshake(id, endpoint, streamable, options, deadline, (conn) => (streamCut = (error) => conn.streamCut(error, 'streamable')));
  if (first.ok) {
    log?.(`[mcp ${id}] connected to ${endpoint.display} over Streamable HTTP (${first.conn.serverName ?? 'unnamed server'})`);
    return first.conn;
  }
  if (!isOlderServer(first.error)) throw new McpStartError(id, startReason(first.error, endpoint, options.startTimeoutMs));
  log?.(`[mcp ${id}] ${endpoint.display} answered HTTP ${(first.error as StreamableHTTPError).code} to Streamable HTTP; trying HTTP+SSE`);
  const sse = bound.watch(new SSEClientTransport(endpoint.url, { requestInit, fetch }));
  const second = await handshake(id, endpoint, sse, options, deadline, (conn) => (streamCut = (error) => conn.streamCut(error, 'sse')));
  if (second.ok) {
    log?.(`[mcp ${id}] connected to ${endpoint.display} over HTTP+SSE (${second.conn.serverName ?? 'unnamed server'})`);
    return second.conn;
  }
  throw new McpStartError(id, `${startReason(second.error, endpoint, options.startTimeoutMs)} (over HTTP+SSE, after Streamable HTTP was refused)`);
}

type Handshake = { ok: true; conn: ServerConnection } | { ok: false; error: unknown };

class HandshakeTimeout extends Error {}

async function handshake(
  id: string,
  endpoint: RemoteEndpoint,
  transport: ConnectionTransport,
  options: ConnectOptions,
  deadline: number,
  onConnection: (conn: ServerConnection) => void,
): Promise<Handshake> {
  const client = newMcpClient(options);
  const conn = ServerConnection.over(id, client, transport, options, endpoint.display);
  onConnection(conn);
  let connected = false;
  client.onerror = (error) => {
    options.onLog?.(`[mcp ${id}] ${errorMessage(error)}`);
    // A stream that drops after the handshake is a server gone (or a network cut): calls in flight
    // would otherwise wait out their timeout. Closing fails them at once as a lost connection. A
    // stream Steward cut itself is not: the server is still there (HTTP+SSE: see streamCut).
    if (connected && isDroppedStream(error) && !isAnswerCut(error)) void transport.close();
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HandshakeTimeout()), Math.max(0, deadline - Date.now()));
  });
  try {
    await Promise.race([client.connect(transport), timeout]);
    connected = true;
    return { ok: true, conn };
  } catch (error) {
    await conn.close();
    return { ok: false, error };
  } finally {
    clearTimeout(timer);
  }
}

/** The sign of a server that predates Streamable HTTP: its initialize POST is not found / not allowed. */
function isOlderServer(error: unknown): boolean {
  if (!(error instanceof StreamableHTTPError) || error.code === undefined) return false;
  return error.code >= 400 && error.code < 500 && error.code !== 401 && error.code !== 403;
}

function isDroppedStream(error: Error): boolean {
  return error instanceof SseError || error.message.startsWith('SSE stream disconnected');
}

function startReason(error: unknown, endpoint: RemoteEndpoint, timeoutMs: number): string {
  if (error instanceof HandshakeTimeout) return `no answer to the MCP handshake from ${endpoint.display} within ${timeoutMs} ms`;
  if (error instanceof SignInRequiredError) return error.message;
  if (error instanceof StreamableHTTPError && error.code !== undefined) {
    const auth = error.code === 401 || error.code === 403 ? ' (check its headers: the keychain value must be the whole header, e.g. "Bearer …")' : '';
    return `${endpoint.display} answered HTTP ${error.code}${auth}`;
  }
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (typeof code === 'string') return `could not reach ${endpoint.display} (${code})`;
  return `could not connect to ${endpoint.display}: ${errorMessage(error)}`;
}
