import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { HostMethod, HostParams, ResponseFrame } from '@shared/contracts/host-api';
import { createHost } from '../../composition/create-host';
import type { HostSession } from '../../composition/host-types';
import { createKeychainStore } from '../../credentials/keychain-store';
import { headlessBrowser } from '../conformance/headless-browser';
import { startOAuthTestServer } from './oauth-test-server';
import { CLIENT_METADATA_URL_ENV } from './client-metadata';
import { cliWith } from '../../../test-support/cli-capture';

/**
 * The app's "Sign in" through the host API: mcp.sign_in opens the authorization page with the
 * host's opener (the system browser; a headless visit here) and answers once the loopback redirect
 * came back; the page is told the server name and tool count, never a token. Real keychain under D-Bus.
 */
const hasSessionBus = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
const store = createKeychainStore({ service: `steward-test-${randomBytes(6).toString('hex')}` });
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  if (hasSessionBus) for (const name of await store.list()) await store.delete(name);
});

/** A host whose person approves every confirmation and whose system browser is a headless visit; its requests as `ok`. */
async function signInHost() {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-sign-in-'));
  const opened: string[] = [];
  const host = await createHost({
    dataDir,
    shell: 'electron',
    log: () => undefined,
    credentials: store,
    confirm: { kind: 'dialog', ask: async () => true },
    openUrl: (url) => {
      opened.push(url);
      void headlessBrowser(new URL(url));
    },
  });
  cleanups.push(async () => {
    await host.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const session: HostSession = { id: 'page', push: () => undefined };
  let id = 1;
  const frames: ResponseFrame[] = [];
  const ok = async <M extends HostMethod>(method: M, params: HostParams<M>): Promise<unknown> => {
    const frame = await host.handle({ kind: 'request', id: id++, method, params }, session);
    frames.push(frame);
    if (!frame.ok) throw new Error(`${frame.error.code}: ${frame.error.message}`);
    return frame.result;
  };
  return { dataDir, opened, frames, ok };
}

/** `steward servers list` on the host's data folder, reading the same keychain. */
async function serversList(dataDir: string) {
  const text = await cliWith(['servers', 'list', '--data-dir', dataDir], { credentials: () => store });
  const json = await cliWith(['servers', 'list', '--json', '--data-dir', dataDir], { credentials: () => store });
  expect(text.code, text.stderr).toBe(0);
  return { text: text.stdout, stderr: text.stderr, json: (JSON.parse(json.stdout) as { servers: Array<Record<string, unknown>> }).servers };
}

const DCR_SENTENCE = 'This server is signed in to with a client Steward registered for it on the spot (dynamic client registration) — deprecated in MCP 2026-07-28, still supported for this server.';

describe.skipIf(!hasSessionBus)('signing in from the app (needs a D-Bus session with a Secret Service; skipped without one)', () => {
  it('mcp.sign_in opens the page in the browser, keeps the tokens on the host, and Inspect then lists the tools', async () => {
    const server = await startOAuthTestServer();
    cleanups.push(() => server.close());
    const { dataDir, opened, frames, ok } = await signInHost();
    await ok('servers.register', { server: { id: 'remote', label: 'Remote with sign-in', url: server.mcpUrl } });
    expect(await ok('mcp.auth_status', { server: 'remote' })).toEqual({ can_sign_in: true, signed_in: false });
    await expect(ok('mcp.inspect', { server: 'remote' })).rejects.toThrow(/needs you to sign in/);

    expect(await ok('mcp.sign_in', { server: 'remote' })).toEqual({ server_name: 'oauth-test-server', tools: 1 });
    expect(opened).toHaveLength(1);
    expect(new URL(opened[0] ?? '').origin).toBe(new URL(server.issuer).origin);
    // The test server's authorization server registered Steward's client on the spot: deprecated in MCP 2026-07-28, and said so.
    expect(server.log.registrations).toHaveLength(1);
    expect(await ok('mcp.auth_status', { server: 'remote' })).toEqual({ can_sign_in: true, signed_in: true, client: 'dynamic_registration' });
    const listedServers = await serversList(dataDir);
    expect(listedServers.text).toMatch(new RegExp(`^remote .*\\n    ${DCR_SENTENCE.replace(/[().]/g, '\\$&')}\\n`, 'm'));
    expect(listedServers.json).toContainEqual(expect.objectContaining({ id: 'remote', sign_in_client: 'dynamic_registration', deprecated_features: ['dynamic_registration'] }));
    const inspected = (await ok('mcp.inspect', { server: 'remote' })) as { tools: { name: string }[] };
    expect(inspected.tools.map((t) => t.name)).toEqual(['echo']);
    const listed = JSON.stringify(await ok('credentials.list', {}));
    for (const secret of server.issued) {
      expect(JSON.stringify(frames)).not.toContain(secret);
      expect(listed).not.toContain(secret);
    }

    expect(await ok('mcp.sign_out', { server: 'remote' })).toEqual({ signed_out: true });
    expect(await ok('mcp.auth_status', { server: 'remote' })).toEqual({ can_sign_in: true, signed_in: false });
    expect((await serversList(dataDir)).text).not.toContain('dynamic client registration');
  });

  it('a sign-in with Steward’s client ID metadata document registers nothing and is not marked as deprecated', async () => {
    const server = await startOAuthTestServer({ clientMetadataDocuments: true });
    cleanups.push(() => server.close());
    const document = 'https://steward.example/oauth/client.json';
    const before = process.env[CLIENT_METADATA_URL_ENV];
    process.env[CLIENT_METADATA_URL_ENV] = document;
    cleanups.push(async () => {
      if (before === undefined) delete process.env[CLIENT_METADATA_URL_ENV];
      else process.env[CLIENT_METADATA_URL_ENV] = before;
    });
    const { dataDir, ok } = await signInHost();
    await ok('servers.register', { server: { id: 'cimd', label: 'Remote with a metadata document', url: server.mcpUrl } });
    expect(await ok('mcp.sign_in', { server: 'cimd' })).toEqual({ server_name: 'oauth-test-server', tools: 1 });
    expect(server.log.registrations).toEqual([]);
    expect(server.log.authorizations).toHaveLength(1);
    expect(await ok('mcp.auth_status', { server: 'cimd' })).toEqual({ can_sign_in: true, signed_in: true, client: 'metadata_document' });
    const listedServers = await serversList(dataDir);
    expect(listedServers.text).toMatch(/^cimd /m);
    expect(listedServers.text).not.toContain('dynamic client registration');
    expect(listedServers.json).toContainEqual(expect.objectContaining({ id: 'cimd', sign_in_client: 'metadata_document' }));
    expect(listedServers.json.find((s) => s.id === 'cimd')).not.toHaveProperty('deprecated_features');
    expect(await ok('mcp.sign_out', { server: 'cimd' })).toEqual({ signed_out: true });
  });

  it('a server registered with a sign-in client (the form’s OAuth fields) signs in as that client, its secret read from the keychain; nothing registers itself', async () => {
    const secret = `cs-${randomBytes(12).toString('hex')}`;
    const server = await startOAuthTestServer({
      clients: [{ client_id: 'steward-by-admin', client_secret: secret, redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'client_secret_post', grant_types: ['authorization_code', 'refresh_token'] }],
    });
    cleanups.push(() => server.close());
    await store.set('idp-client-secret', secret);
    const { frames, ok } = await signInHost();
    await ok('servers.register', { server: { id: 'admin', label: 'Pre-registered', url: server.mcpUrl, oauth: { client_id: 'steward-by-admin', client_secret: 'keychain:idp-client-secret' } } });
    expect(await ok('mcp.sign_in', { server: 'admin' })).toEqual({ server_name: 'oauth-test-server', tools: 1 });
    expect(server.log.registrations).toEqual([]);
    expect(await ok('mcp.auth_status', { server: 'admin' })).toEqual({ can_sign_in: true, signed_in: true, client: 'pre_registered' });
    expect(server.log.grants).toEqual([expect.objectContaining({ grant: 'authorization_code' })]);
    for (const value of [secret, ...server.issued]) expect(JSON.stringify(frames)).not.toContain(value);
    expect(await ok('mcp.sign_out', { server: 'admin' })).toEqual({ signed_out: true });
  });

  it('a server that is not a url server has nothing to sign in to', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-sign-in-'));
    const host = await createHost({ dataDir, shell: 'electron', log: () => undefined, credentials: store, openUrl: () => undefined });
    cleanups.push(async () => {
      await host.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const frame = await host.handle({ kind: 'request', id: 1, method: 'mcp.sign_in', params: { server: 'memory' } }, { id: 'page', push: () => undefined });
    expect(frame).toMatchObject({ ok: false, error: { code: 'invalid_params', message: expect.stringContaining('nothing to sign in to') } });
  });
});
