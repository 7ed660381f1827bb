import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { McpServerSpec } from '@shared/contracts/spec';
import { LOCAL_ONLY } from '@shared/policy/privacy';
import { createKeychainStore } from '../../credentials/keychain-store';
import { signInRemoteServer } from './sign-in';

/**
 * Enterprise-managed authorization (SEP-990) against small loopback test doubles: an identity
 * provider that exchanges one known ID token for an ID-JAG (RFC 8693), an authorization server that
 * takes that ID-JAG as a JWT bearer grant from one client (client_secret_basic, RFC 7523), and a
 * real MCP server (the SDK's) that wants its token. Secrets and the ID token sit in the real
 * keychain (Secret Service under D-Bus, as CI runs every test).
 */
const store = createKeychainStore({ service: `steward-test-${randomBytes(6).toString('hex')}` });
afterAll(async () => {
  if (process.env.DBUS_SESSION_BUS_ADDRESS) for (const name of await store.list()) await store.delete(name);
});

const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';

function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none' })}.${part(claims)}.sig`;
}

interface Doubles {
  mcpUrl: string;
  idpIssuer: string;
  asIssuer: string;
  idToken: string;
  exchanges: Array<Record<string, string>>;
  grants: Array<{ authorization?: string; body: Record<string, string> }>;
  presented: string[];
  close(): Promise<void>;
}

async function listen(app: express.Express): Promise<{ url: string; server: Server }> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function startDoubles(): Promise<Doubles> {
  const exchanges: Doubles['exchanges'] = [];
  const grants: Doubles['grants'] = [];
  const presented: string[] = [];
  const idpApp = express().use(express.urlencoded({ extended: false }));
  const asApp = express().use(express.urlencoded({ extended: false }));
  const mcpApp = express().use(express.json());
  const idp = await listen(idpApp);
  const as = await listen(asApp);
  const mcp = await listen(mcpApp);
  const idToken = jwt({ iss: idp.url, sub: 'ada@example.com', aud: 'steward-at-idp', exp: Math.floor(Date.now() / 1000) + 3600 });
  const jag = `jag-${randomBytes(8).toString('hex')}`;
  const accessToken = `at-${randomBytes(8).toString('hex')}`;

  // Only OpenID discovery, and only the fields a minimal IdP publishes.
  idpApp.get('/.well-known/openid-configuration', (_req, res) => void res.json({ issuer: idp.url, token_endpoint: `${idp.url}/token` }));
  idpApp.post('/token', (req, res) => {
    const body = req.body as Record<string, string>;
    exchanges.push(body);
    if (body.subject_token !== idToken || body.audience !== as.url || body.resource !== `${mcp.url}/mcp`) return void res.status(400).json({ error: 'invalid_grant', error_description: 'Invalid ID token' });
    res.json({ access_token: jag, issued_token_type: ID_JAG, token_type: 'N_A' });
  });
  asApp.get('/.well-known/oauth-authorization-server', (_req, res) =>
    void res.json({
      issuer: as.url,
      authorization_endpoint: `${as.url}/authorize`,
      token_endpoint: `${as.url}/token`,
      response_types_supported: ['code'],
      grant_types_supported: ['urn:ietf:params:oauth:grant-type:jwt-bearer'],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
    }),
  );
  asApp.post('/token', (req, res) => {
    const body = req.body as Record<string, string>;
    grants.push({ authorization: req.headers.authorization, body });
    if (req.headers.authorization !== `Basic ${Buffer.from('steward-at-as:as-secret').toString('base64')}`) return void res.status(401).json({ error: 'invalid_client', error_description: 'Invalid client credentials' });
    if (body.assertion !== jag) return void res.status(400).json({ error: 'invalid_grant', error_description: 'Invalid authorization grant' });
    res.json({ access_token: accessToken, token_type: 'Bearer', expires_in: 3600 });
  });
  mcpApp.get('/.well-known/oauth-protected-resource/mcp', (_req, res) => void res.json({ resource: `${mcp.url}/mcp`, authorization_servers: [as.url] }));
  mcpApp.all('/mcp', async (req, res) => {
    const auth = req.headers.authorization;
    if (auth) presented.push(auth);
    if (auth !== `Bearer ${accessToken}`) {
      return void res.status(401).set('WWW-Authenticate', `Bearer resource_metadata="${mcp.url}/.well-known/oauth-protected-resource/mcp"`).json({ error: 'invalid_token' });
    }
    const server = new McpServer({ name: 'enterprise-double', version: '1.0.0' });
    server.registerTool('whoami', { description: 'Who is calling' }, () => ({ content: [{ type: 'text', text: 'ada' }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  return {
    mcpUrl: `${mcp.url}/mcp`,
    idpIssuer: idp.url,
    asIssuer: as.url,
    idToken,
    exchanges,
    grants,
    presented,
    async close() {
      for (const s of [idp.server, as.server, mcp.server]) {
        s.closeAllConnections();
        await new Promise((resolve) => s.close(resolve));
      }
    },
  };
}

let doubles: Doubles | undefined;
afterEach(async () => {
  await doubles?.close();
  doubles = undefined;
});

function enterpriseSpec(d: Doubles, overrides: { issuer?: string } = {}) {
  return McpServerSpec.parse({
    id: 'corp',
    url: d.mcpUrl,
    oauth: {
      client_id: 'steward-at-as',
      client_secret: 'keychain:corp-as-secret',
      grant: 'enterprise_managed',
      idp: { issuer: overrides.issuer ?? d.idpIssuer, client_id: 'steward-at-idp', id_token: 'keychain:corp-id-token' },
    },
  });
}

async function reach(d: Doubles, overrides: { issuer?: string } = {}) {
  return signInRemoteServer(enterpriseSpec(d, overrides), { store, privacy: LOCAL_ONLY, open: () => Promise.reject(new Error('no page may open')) });
}

describe.runIf(Boolean(process.env.DBUS_SESSION_BUS_ADDRESS))('enterprise-managed authorization (SEP-990)', () => {
  it('exchanges the ID token at the IdP for an ID-JAG, the ID-JAG at the authorization server for a token, and reaches the server', async () => {
    const d = (doubles = await startDoubles());
    await store.set('corp-id-token', d.idToken);
    await store.set('corp-as-secret', 'as-secret');
    const before = await store.list();

    const outcome = await reach(d);
    expect(outcome).toMatchObject({ ok: true, server_name: 'enterprise-double', tools: 1 });
    expect(d.exchanges[0]).toMatchObject({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: d.idToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      requested_token_type: ID_JAG,
      audience: d.asIssuer,
      resource: d.mcpUrl,
      client_id: 'steward-at-idp',
    });
    expect(d.grants[0]?.body).toMatchObject({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', resource: d.mcpUrl });
    expect(d.grants[0]?.body.client_secret).toBeUndefined();
    // The ID token went to the IdP only; the token is held for the connection, never written.
    expect(d.presented.some((h) => h.includes(d.idToken))).toBe(false);
    expect(await store.list()).toEqual(before);
  });

  it('says in words when the IdP refuses the exchange, and stores nothing', async () => {
    const d = (doubles = await startDoubles());
    await store.set('corp-id-token', jwt({ iss: d.idpIssuer, sub: 'ada', exp: Math.floor(Date.now() / 1000) + 60 }));
    await store.set('corp-as-secret', 'as-secret');
    const before = await store.list();
    const outcome = await reach(d);
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? '' : outcome.message).toContain(`the identity provider ${d.idpIssuer} refused to exchange your ID token for access to MCP server "corp" (invalid_grant: Invalid ID token); nothing was stored`);
    expect(d.grants).toHaveLength(0);
    expect(await store.list()).toEqual(before);
  });

  it('says in words when the authorization server refuses the grant', async () => {
    const d = (doubles = await startDoubles());
    await store.set('corp-id-token', d.idToken);
    await store.set('corp-as-secret', 'wrong-secret');
    const outcome = await reach(d);
    expect(outcome.ok ? '' : outcome.message).toContain(`the authorization server ${d.asIssuer} refused the grant from your identity provider (invalid_client: Invalid client credentials); nothing was stored`);
    // The IdP's part went through; the authorization server's refusal ended it.
    expect(d.exchanges.length).toBeGreaterThan(0);
    expect(d.grants.every((g) => g.body.assertion?.startsWith('jag-'))).toBe(true);
  });

  it('never sends an expired ID token, or one another IdP issued', async () => {
    const d = (doubles = await startDoubles());
    await store.set('corp-as-secret', 'as-secret');
    await store.set('corp-id-token', jwt({ iss: d.idpIssuer, sub: 'ada', exp: Math.floor(Date.now() / 1000) - 10 }));
    const expired = await reach(d);
    expect(expired.ok ? '' : expired.message).toContain('the ID token in keychain:corp-id-token expired at');
    await store.set('corp-id-token', d.idToken);
    const elsewhere = await reach(d, { issuer: 'http://127.0.0.1:1/other-idp' });
    expect(elsewhere.ok ? '' : elsewhere.message).toContain(`was issued by ${d.idpIssuer}, not by the identity provider http://127.0.0.1:1/other-idp`);
    expect(d.exchanges).toHaveLength(0);
  });

  it('never sends the ID token in the clear to an identity provider off this machine (a hand-edited registry)', async () => {
    const d = (doubles = await startDoubles());
    await store.set('corp-as-secret', 'as-secret');
    await store.set('corp-id-token', d.idToken);
    const cleartext = await reach(d, { issuer: 'http://idp.example.com' });
    expect(cleartext.ok).toBe(false);
    expect(cleartext.ok ? '' : cleartext.message).toContain('oauth.idp.issuer must be an https:// address');
    expect(cleartext.ok ? '' : cleartext.message).not.toContain(d.idToken);
    expect(d.exchanges).toHaveLength(0);
    expect(d.grants).toHaveLength(0);
  });
});

describe('an enterprise-managed server in a spec', () => {
  it('takes the IdP and the ID token as keychain references only, and needs the idp', () => {
    const pasted = McpServerSpec.safeParse({ id: 'corp', url: 'https://mcp.example.com/mcp', oauth: { client_id: 'c', grant: 'enterprise_managed', idp: { issuer: 'https://idp.example.com', client_id: 'i', id_token: 'eyJhbGciOi.x.y' } } });
    expect(JSON.stringify(pasted.error?.issues)).toContain('oauth.idp.id_token must be a keychain reference');
    expect(JSON.stringify(pasted.error?.issues)).not.toContain('eyJhbGciOi');
    const noIdp = McpServerSpec.safeParse({ id: 'corp', url: 'https://mcp.example.com/mcp', oauth: { client_id: 'c', grant: 'enterprise_managed' } });
    expect(JSON.stringify(noIdp.error?.issues)).toContain('an enterprise_managed client needs oauth.idp');
    const idpElsewhere = McpServerSpec.safeParse({ id: 'corp', url: 'https://mcp.example.com/mcp', oauth: { client_id: 'c', idp: { issuer: 'https://idp.example.com', client_id: 'i', id_token: 'keychain:t' } } });
    expect(JSON.stringify(idpElsewhere.error?.issues)).toContain('set oauth.grant to \\"enterprise_managed\\"');
  });
});
