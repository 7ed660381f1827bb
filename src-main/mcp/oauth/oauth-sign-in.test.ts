import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AgentSpec } from '@shared/contracts/spec';
import type { RunEvent } from '@shared/contracts/events';
import { ModelScript } from '@shared/contracts/script';
import { LOCAL_ONLY } from '@shared/policy/privacy';
import { runAgent } from '../../engine/run-agent';
import { resolveProvider } from '../../providers/resolve-provider';
import { createKeychainStore } from '../../credentials/keychain-store';
import { createMemoryLedger } from '../idempotency-ledger';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { headlessBrowser } from '../conformance/headless-browser';
import { oauthCredentialName } from './oauth-record';
import { CLIENT_METADATA_URL_ENV } from './client-metadata';
import { isSignedIn, signInRemoteServer, signOutRemoteServer } from './sign-in';
import { startOAuthTestServer, type OAuthTestServer } from './oauth-test-server';
import { runCli } from '../../shells/cli/cli';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * OAuth sign-in end to end, with no person: an authorization server built from the SDK's server
 * auth helpers that approves at once (test double of the identity provider), a real MCP server
 * that requires its tokens, Steward's sign-in with its loopback redirect (a headless visit plays
 * the browser), and the tokens in the real OS keychain (Secret Service under D-Bus, as CI runs
 * every test). The tokens the server issued are planted values: none may appear in what a run
 * writes (its events, which the app stores in IndexedDB and exports, and its result).
 */
const hasSessionBus = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
const store = createKeychainStore({ service: `steward-test-${randomBytes(6).toString('hex')}` });
afterAll(async () => {
  if (hasSessionBus) for (const name of await store.list()) await store.delete(name);
});

let server: OAuthTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function echoRun(url: string, call: { tool: string; arguments: Record<string, unknown> } = { tool: 'echo', arguments: { text: 'hello' } }) {
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'oauth-probe',
    name: 'OAuth probe',
    instructions: 'Use the remote server.',
    task: 'Echo something.',
    servers: [{ id: 'remote', url, tools: [call.tool] }],
    tool_effects: { [`remote/${call.tool}`]: { effect: 'read' } },
    supervision: { phase: 2 },
  });
  const script = ModelScript.parse({
    latency_ms: 0,
    student: [{ json: { decision_type: 'tool_call', tool_name: call.tool, arguments: call.arguments } }, { json: { decision_type: 'complete', output: 'done' } }],
    teacher: [
      { json: { verdict: 'accept', reason_codes: [], explanation: 'Echo is harmless.' } },
      { json: { verdict: 'accept', reason_codes: [], explanation: 'Done.' } },
    ],
  });
  return async () => {
    const ws = tempNotesWorkspace();
    const events: RunEvent[] = [];
    try {
      const result = await runAgent({
        spec,
        specDir: ws.dir,
        ledger: createMemoryLedger(),
        onEvent: (e) => events.push(e),
        credentials: store,
        providers: { student: resolveProvider({ provider: 'script' }, 'student', { script }), teacher: resolveProvider({ provider: 'script' }, 'teacher', { script }) },
      });
      return { result, written: JSON.stringify(events) + JSON.stringify(result) };
    } finally {
      ws.cleanup();
    }
  };
}

describe.skipIf(!hasSessionBus)('signing in to a remote MCP server with OAuth (needs a D-Bus session with a Secret Service; skipped without one)', () => {
  it('discovers, registers, authorizes with PKCE and the resource indicator, keeps the tokens in the keychain only, and a run then uses them', async () => {
    server = await startOAuthTestServer();
    const spec = { id: 'remote', url: server.mcpUrl, args: [] };
    const opened: string[] = [];
    const outcome = await signInRemoteServer(spec, {
      store,
      privacy: LOCAL_ONLY,
      open: async (url) => {
        opened.push(url.href);
        await headlessBrowser(url);
      },
    });
    expect(outcome).toEqual({ ok: true, server_name: 'oauth-test-server', protocol_version: '2025-11-25', tools: 1 });
    // The browser was sent to the authorization server, with PKCE (S256) and the resource.
    expect(opened).toHaveLength(1);
    const authorize = new URL(opened[0] ?? '');
    expect(authorize.origin).toBe(new URL(server.issuer).origin);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(authorize.searchParams.get('resource')).toBe(server.mcpUrl);
    expect(server.log.registrations).toHaveLength(1);
    expect(server.log.grants).toEqual([{ grant: 'authorization_code', resource: server.mcpUrl }]);
    // The tokens are in the keychain entry for this server, under the name the app lists.
    expect(await store.list()).toContain(oauthCredentialName(server.mcpUrl));
    const stored = (await store.get(oauthCredentialName(server.mcpUrl))) ?? '';
    expect(stored).toContain(server.issued[0]);
    // Keyed by the authorization server that issued them (SEP-2352).
    expect(JSON.parse(stored)).toMatchObject({ issuer: server.issuer, tokens: { issuer: server.issuer } });
    expect(await isSignedIn(spec, store)).toBe(true);

    const { result, written } = await echoRun(server.mcpUrl)();
    expect(result.status, `${result.message} ${result.setup_error}`).toBe('completed');
    expect(result.executions[0]?.content).toBe('echo: hello');
    expect(server.log.accepted.length).toBeGreaterThan(0);
    expect(server.log.accepted.every((t) => t === server?.issued[0])).toBe(true);
    for (const secret of server.issued) expect(written).not.toContain(secret);

    expect(await signOutRemoteServer(spec, store)).toBe(true);
    expect(await isSignedIn(spec, store)).toBe(false);
  });

  it('refreshes an expired access token before sending it and keeps only the newest in the keychain; the run never shows any', async () => {
    server = await startOAuthTestServer({ tokenLifetimeS: 2 });
    const spec = { id: 'remote', url: server.mcpUrl, args: [] };
    expect((await signInRemoteServer(spec, { store, privacy: LOCAL_ONLY, open: headlessBrowser })).ok).toBe(true);
    const first = server.issued[0] ?? '';
    const presentedAtSignIn = server.log.presented.length;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const { result, written } = await echoRun(server.mcpUrl)();
    expect(result.status, `${result.message} ${result.setup_error}`).toBe('completed');
    // Renewed with the refresh token (more than once if the slow run outlived a 2 s token), never signed in anew.
    expect(server.log.grants[0]?.grant).toBe('authorization_code');
    expect(server.log.grants.slice(1).length).toBeGreaterThan(0);
    expect(server.log.grants.slice(1).every((g) => g.grant === 'refresh_token')).toBe(true);
    expect(server.log.authorizations).toHaveLength(1);
    // Refreshed before use: the expired token was never sent again.
    expect(server.log.presented.slice(presentedAtSignIn)).not.toContain(first);
    const latest = server.issued[server.issued.length - 2] ?? '';
    expect(server.log.accepted).toContain(latest);
    const stored = (await store.get(oauthCredentialName(server.mcpUrl))) ?? '';
    expect(stored).toContain(latest);
    expect(stored).not.toContain(first);
    for (const secret of server.issued) expect(written).not.toContain(secret);
    await signOutRemoteServer(spec, store);
  });

  it('a server that echoes the caller\'s token back: the run keeps its keychain label, never the token', async () => {
    server = await startOAuthTestServer({ echoesToken: true });
    const spec = { id: 'remote', url: server.mcpUrl, args: [] };
    expect((await signInRemoteServer(spec, { store, privacy: LOCAL_ONLY, open: headlessBrowser })).ok).toBe(true);
    const { result, written } = await echoRun(server.mcpUrl, { tool: 'whoami', arguments: {} })();
    expect(result.status, `${result.message} ${result.setup_error}`).toBe('completed');
    expect(server.log.accepted.length).toBeGreaterThan(0);
    expect(result.executions[0]?.content).toBe('you called with Bearer ••••(keychain:oauth.remote)');
    for (const secret of server.issued) expect(written).not.toContain(secret);
    await signOutRemoteServer(spec, store);
  });

  it('with a client ID metadata document configured, an authorization server that does not support them still gets a registration', async () => {
    server = await startOAuthTestServer();
    const spec = { id: 'remote', url: server.mcpUrl, args: [] };
    process.env[CLIENT_METADATA_URL_ENV] = 'https://example.org/steward/client.json';
    try {
      expect((await signInRemoteServer(spec, { store, privacy: LOCAL_ONLY, open: headlessBrowser })).ok).toBe(true);
    } finally {
      delete process.env[CLIENT_METADATA_URL_ENV];
    }
    expect(server.log.registrations).toHaveLength(1);
    expect(server.log.registrations[0]?.client_id).not.toContain('example.org');
    await signOutRemoteServer(spec, store);
  });

  it('a run against a server nobody signed in to fails at the start, saying how to sign in, and registers nothing', async () => {
    server = await startOAuthTestServer();
    const { result } = await echoRun(server.mcpUrl)();
    expect(result.status).toBe('failed');
    expect(result.setup_error).toMatch(/MCP server "remote" needs you to sign in .*steward mcp sign-in/);
    expect(server.log.registrations).toEqual([]);
    expect(server.log.authorizations).toEqual([]);
  });

  it('steward mcp sign-in prints the link, finishes when the browser comes back, and status/sign-out follow the keychain', async () => {
    server = await startOAuthTestServer();
    const ws = tempNotesWorkspace();
    try {
      const file = join(ws.dir, 'remote.json');
      writeFileSync(file, JSON.stringify({ format: 'steward/v1', kind: 'agent', id: 'remote-agent', name: 'Remote', instructions: 'x', task: 'y', servers: [{ id: 'remote', url: server.mcpUrl }] }));
      let out = '';
      let err = '';
      const visits: Promise<void>[] = [];
      const io = {
        stdout: (text: string) => {
          out += text;
          // The person opens the printed link: a headless visit here.
          const link = /^\s+(http:\/\/\S+)$/m.exec(text)?.[1];
          if (link) visits.push(headlessBrowser(new URL(link)));
        },
        stderr: (text: string) => (err += text),
        env: { CI: '1' },
        credentials: () => store,
      };
      expect(await runCli(['mcp', 'status', file, 'remote'], io)).toBe(1);
      expect(await runCli(['mcp', 'sign-in', file, 'remote'], io), err).toBe(0);
      await Promise.all(visits);
      expect(out).toContain(`Open this link to sign in to "remote"`);
      expect(out).toMatch(/signed in to "remote" \(oauth-test-server, 1 tool\(s\), speaks MCP 2025-(06-18|11-25)\); the tokens are in the OS keychain/);
      expect(await runCli(['mcp', 'status', file, 'remote'], io)).toBe(0);
      expect(await runCli(['mcp', 'sign-out', file, 'remote'], io)).toBe(0);
      expect(await runCli(['mcp', 'status', file, 'remote'], io)).toBe(1);
      for (const secret of server.issued) expect(out + err).not.toContain(secret);
    } finally {
      ws.cleanup();
    }
  });
});
