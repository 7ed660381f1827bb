import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActionResult } from '@shared/contracts/audit';
import type { HostMethod, HostParams, ResponseFrame } from '@shared/contracts/host-api';
import type { RegisteredServer } from '@shared/contracts/host-registry';
import { createHost } from '../composition/create-host';
import type { ConfirmRequest, HostSession } from '../composition/host-types';
import { startRemoteMcpServer, type RemoteMcpServer } from '../../test-support/remote-mcp-server';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A host whose person approves every confirmation through the native dialog (the Electron shell's way). */
async function hostApproving() {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-remote-reg-'));
  const asked: ConfirmRequest[] = [];
  const host = await createHost({ dataDir, shell: 'electron', log: () => undefined, confirm: { kind: 'dialog', ask: async (r) => (asked.push(r), true) } });
  cleanups.push(async () => {
    await host.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const session: HostSession = { id: 'page', push: () => undefined };
  let id = 1;
  const call = (method: HostMethod, params: unknown): Promise<ResponseFrame> => host.handle({ kind: 'request', id: id++, method, params }, session);
  const ok = async <M extends HostMethod>(method: M, params: HostParams<M>): Promise<unknown> => {
    const frame = await call(method, params);
    if (!frame.ok) throw new Error(`${frame.error.code}: ${frame.error.message}`);
    return frame.result;
  };
  return { asked, call, ok };
}

async function remote(): Promise<RemoteMcpServer> {
  const server = await startRemoteMcpServer('streamable');
  cleanups.push(() => server.close());
  return server;
}

describe('a remote (url) server in the host registry', () => {
  it('is registered after a person confirms, and Inspect lists its tools over HTTP', async () => {
    const server = await remote();
    const h = await hostApproving();
    const result = (await h.ok('servers.register', { server: { id: 'remote', label: 'Remote test', url: server.url() } })) as ActionResult;
    expect(result).toEqual({ status: 'done' });
    expect(h.asked[0]).toMatchObject({ action: 'servers.register', title: expect.stringMatching(/remote MCP server "remote"/), detail: expect.stringContaining(`url ${server.url()}`) });
    const listed = ((await h.ok('servers.list', {})) as { servers: RegisteredServer[] }).servers;
    expect(listed).toContainEqual(expect.objectContaining({ id: 'remote', url: server.url(), source: 'user' }));
    const inspected = (await h.ok('mcp.inspect', { server: 'remote' })) as { server_name?: string; tools: { name: string }[] };
    expect(inspected.server_name).toBe('remote-test-server');
    expect(inspected.tools.map((t) => t.name).sort()).toEqual(['die', 'echo']);
  });

  it('a pasted header value is refused before anyone is asked, naming the header', async () => {
    const h = await hostApproving();
    const frame = await h.call('servers.register', { server: { id: 'remote', label: 'Remote', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer sk-live-abcdef1234567890' } } });
    expect(frame).toMatchObject({ ok: false, error: { code: 'invalid_params', message: expect.stringContaining('headers.Authorization must be a keychain reference') } });
    expect(JSON.stringify(frame)).not.toContain('sk-live-abcdef1234567890');
    expect(h.asked).toEqual([]);
  });

  it('a sign-in client registered beforehand is confirmed by id and secret reference, kept, and a pasted secret is refused unasked', async () => {
    const h = await hostApproving();
    const oauth = { client_id: 'steward-desktop', client_secret: 'keychain:idp-secret' };
    await h.ok('servers.register', { server: { id: 'idp', label: 'IdP', url: 'https://mcp.example.com/mcp', oauth } });
    expect(h.asked[0]?.detail).toContain('sign-in client steward-desktop (secret keychain:idp-secret)');
    const listed = ((await h.ok('servers.list', {})) as { servers: RegisteredServer[] }).servers;
    expect(listed).toContainEqual(expect.objectContaining({ id: 'idp', oauth }));
    const pasted = await h.call('servers.register', { server: { id: 'idp2', label: 'IdP', url: 'https://mcp.example.com/mcp', oauth: { client_id: 'x', client_secret: 'cs-live-abcdef1234567890' } } });
    expect(pasted).toMatchObject({ ok: false, error: { code: 'invalid_params', message: expect.stringContaining('oauth.client_secret must be a keychain reference') } });
    expect(JSON.stringify(pasted)).not.toContain('cs-live-abcdef1234567890');
    expect(h.asked).toHaveLength(1);
  });

  it('Inspect of a remote server on a host the privacy policy does not allow sends nothing', async () => {
    const h = await hostApproving();
    await h.ok('servers.register', { server: { id: 'far', label: 'Far', url: 'https://mcp.example.com/mcp' } });
    const frame = await h.call('mcp.inspect', { server: 'far' });
    expect(frame).toMatchObject({ ok: false, error: { message: expect.stringMatching(/mcp\.example\.com, which the workspace privacy policy does not allow/) } });
  });
});
