import { randomBytes, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createOAuthMetadata, getOAuthProtectedResourceMetadataUrl, mcpAuthMetadataRouter, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { z } from 'zod';

/** What the authorization server was asked, for a test to assert on. */
export interface AuthServerLog {
  registrations: OAuthClientInformationFull[];
  authorizations: AuthorizationParams[];
  grants: Array<{ grant: 'authorization_code' | 'refresh_token'; resource?: string }>;
  /** Bearer tokens the MCP server accepted, in order. */
  accepted: string[];
  /** Every bearer token presented to the MCP server, valid or not. */
  presented: string[];
}

export interface OAuthTestServer {
  /** The MCP server's address (Streamable HTTP, protected). */
  mcpUrl: string;
  /** The authorization server's issuer, on a port of its own. */
  issuer: string;
  log: AuthServerLog;
  /** Every access and refresh token ever issued: what must never show up anywhere but the keychain. */
  issued: string[];
  close(): Promise<void>;
}

/**
 * A test double of a person's identity provider, built from the SDK's server auth helpers: an
 * OAuth authorization server (`mcpAuthRouter`: metadata, dynamic registration, authorize with
 * PKCE, token, refresh) that approves every authorization at once, and a real MCP server on
 * another loopback port that requires its tokens (`requireBearerAuth`, protected-resource
 * metadata). Access tokens live `tokenLifetimeS` seconds; tokens are planted-looking random values.
 * `clients`: clients registered beforehand (a person's IdP admin did it), known from the start.
 */
export async function startOAuthTestServer(options: { tokenLifetimeS?: number; clients?: OAuthClientInformationFull[]; /** Also offer `whoami`, which echoes the caller's token. */ echoesToken?: boolean; /** Also offer this tool, which needs `scope` on top of `mcp:basic` (the sign-in's scope): a token without it is refused 403 `insufficient_scope` (step-up). */ stepUp?: { tool: string; scope: string }; /** Say it supports client ID metadata documents (SEP-991) and take an https client_id as one (the document is not fetched: a public native client with a loopback redirect, as Steward's is). */ clientMetadataDocuments?: boolean } = {}): Promise<OAuthTestServer> {
  const lifetime = options.tokenLifetimeS ?? 3600;
  const log: AuthServerLog = { registrations: [], authorizations: [], grants: [], accepted: [], presented: [] };
  const issued: string[] = [];
  const clients = new Map<string, OAuthClientInformationFull>((options.clients ?? []).map((c) => [c.client_id, c]));
  const codes = new Map<string, { clientId: string; params: AuthorizationParams }>();
  const access = new Map<string, { clientId: string; expiresAt: number; resource?: string; scopes?: string[] }>();
  const refresh = new Map<string, { clientId: string; resource?: string; scopes?: string[] }>();

  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: (id) =>
      clients.get(id) ??
      (options.clientMetadataDocuments && id.startsWith('https://') ? ({ client_id: id, client_name: 'Steward', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] } satisfies OAuthClientInformationFull) : undefined),
    registerClient: (client) => {
      const full = { ...client, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) } as OAuthClientInformationFull;
      clients.set(full.client_id, full);
      log.registrations.push(full);
      return full;
    },
  };
  const issue = (clientId: string, resource: string | undefined, scopes?: string[]): OAuthTokens => {
    const token = `planted-at-${randomBytes(16).toString('hex')}`;
    const refreshToken = `planted-rt-${randomBytes(16).toString('hex')}`;
    issued.push(token, refreshToken);
    access.set(token, { clientId, expiresAt: Date.now() + lifetime * 1000, resource, scopes });
    refresh.set(refreshToken, { clientId, resource, scopes });
    return { access_token: token, token_type: 'bearer', expires_in: lifetime, refresh_token: refreshToken };
  };
  const provider: OAuthServerProvider = {
    clientsStore,
    async authorize(client, params, res) {
      // The person approves at once.
      log.authorizations.push(params);
      const code = randomUUID();
      codes.set(code, { clientId: client.client_id, params });
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      res.redirect(target.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const entry = codes.get(code);
      if (!entry) throw new Error('unknown code');
      return entry.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code) {
      const entry = codes.get(code);
      if (!entry || entry.clientId !== client.client_id) throw new Error('unknown code');
      codes.delete(code);
      log.grants.push({ grant: 'authorization_code', resource: entry.params.resource?.href });
      return issue(client.client_id, entry.params.resource?.href, entry.params.scopes);
    },
    async exchangeRefreshToken(client, refreshToken, _scopes, resource) {
      const entry = refresh.get(refreshToken);
      if (!entry || entry.clientId !== client.client_id) throw new Error('unknown refresh token');
      refresh.delete(refreshToken);
      log.grants.push({ grant: 'refresh_token', resource: resource?.href });
      return issue(client.client_id, entry.resource, entry.scopes);
    },
    async verifyAccessToken(token): Promise<AuthInfo> {
      const entry = access.get(token);
      if (!entry || entry.expiresAt < Date.now()) throw new Error('invalid or expired token');
      return { token, clientId: entry.clientId, scopes: [], expiresAt: Math.floor(entry.expiresAt / 1000) };
    },
  };

  const authApp = express();
  const authServer = await listen(authApp);
  const issuer = new URL(`http://127.0.0.1:${port(authServer)}/`);
  const authMetadata = { ...createOAuthMetadata({ provider, issuerUrl: issuer }), ...(options.clientMetadataDocuments ? { client_id_metadata_document_supported: true } : {}) };
  if (options.clientMetadataDocuments) authApp.get('/.well-known/oauth-authorization-server', (_req, res) => void res.json(authMetadata));
  authApp.use(mcpAuthRouter({ provider, issuerUrl: issuer }));

  const mcpApp = express();
  mcpApp.use(express.json());
  mcpApp.use((req, _res, next) => {
    const header = req.headers.authorization;
    if (header?.startsWith('Bearer ')) log.presented.push(header.slice('Bearer '.length));
    next();
  });
  const mcpServer = await listen(mcpApp);
  const mcpUrl = new URL(`http://127.0.0.1:${port(mcpServer)}/mcp`);
  mcpApp.use(mcpAuthMetadataRouter({ oauthMetadata: authMetadata, resourceServerUrl: mcpUrl, ...(options.stepUp ? { scopesSupported: ['mcp:basic'] } : {}) }));
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  mcpApp.post('/mcp', bearer, async (req, res) => {
    const token = (req as { auth?: AuthInfo }).auth?.token;
    const stepUp = options.stepUp;
    const body = req.body as { method?: unknown; params?: { name?: unknown } } | undefined;
    if (stepUp && token && body?.method === 'tools/call' && body.params?.name === stepUp.tool && !(access.get(token)?.scopes ?? []).includes(stepUp.scope)) {
      const metadata = getOAuthProtectedResourceMetadataUrl(mcpUrl);
      res.status(403).set('WWW-Authenticate', `Bearer error="insufficient_scope", scope="${stepUp.scope}", resource_metadata="${metadata}"`).json({ error: 'insufficient_scope' });
      return;
    }
    if (token) log.accepted.push(token);
    const server = new McpServer({ name: 'oauth-test-server', version: '1.0.0' });
    server.registerTool('echo', { description: 'Echoes the text back', inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }));
    // A careless server (a debug tool) that shows the caller the token it came with: a run must not keep it.
    if (options.echoesToken) server.registerTool('whoami', { description: 'Says which token the call came with', inputSchema: {} }, () => ({ content: [{ type: 'text', text: `you called with Bearer ${token ?? '(none)'}` }] }));
    if (stepUp) server.registerTool(stepUp.tool, { description: `Needs the ${stepUp.scope} scope`, inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text: `written: ${text}` }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  mcpApp.get('/mcp', bearer, (_req, res) => {
    res.status(405).end();
  });

  return {
    mcpUrl: mcpUrl.href,
    issuer: issuer.href,
    log,
    issued,
    async close() {
      await Promise.all([authServer, mcpServer].map((s) => new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      })));
    },
  };
}

function listen(app: ReturnType<typeof express>): Promise<Server> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function port(server: Server): number {
  return (server.address() as AddressInfo).port;
}
