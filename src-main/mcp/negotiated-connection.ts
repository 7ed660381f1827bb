import { connectRemote } from './http-connection';
import type { McpConnection } from './mcp-connection';
import { MODERN_REVISION } from './modern-client';
import { ModernConnection } from './modern-connection';
import type { RemoteEndpoint } from './remote-endpoint';
import type { RemoteAuth } from './oauth/oauth-fetch';
import type { ConnectOptions } from './server-connection';

/**
 * A remote server, on the newest revision both sides speak: MCP 2026-07-28 when the server offers
 * it (`server/discover`, modern-connection.ts), else the 2025 handshake exactly as before
 * (http-connection.ts: Streamable HTTP, then HTTP+SSE). The revision agreed on is the connection's
 * `protocolVersion`, which the registry shows after Inspect and `steward validate` lists. Costs a
 * 2025 server one extra request per connect (the refused `server/discover`).
 */
export async function connectNegotiated(id: string, endpoint: RemoteEndpoint, headers: Readonly<Record<string, string>>, options: ConnectOptions, auth?: RemoteAuth): Promise<McpConnection> {
  const modern = await ModernConnection.connect(id, endpoint, headers, options, auth);
  if (modern.kind === 'modern') {
    modern.conn.followToolChanges();
    return modern.conn;
  }
  options.onLog?.(`[mcp ${id}] ${endpoint.display} does not offer MCP ${MODERN_REVISION} (${modern.why.slice(0, 200)}); connecting with the 2025 handshake`);
  return connectRemote(id, endpoint, headers, options, auth);
}
