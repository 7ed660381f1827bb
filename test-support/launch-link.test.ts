import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHost } from '../src-main/composition/create-host';
import type { Host } from '../src-main/composition/host-types';
import { startBrowserServer, type BrowserServer } from '../src-main/shells/browser/server';
import { readToken, redeemLaunchLink } from '../src-renderer/host/access-token';
import { connectHost } from './host-process';

/**
 * The page's half of the one-time link (src-renderer/host/access-token.ts) against the real
 * browser-run server and host: the two layers may not import each other, so they meet here.
 */

function memoryStorage() {
  const items = new Map<string, string>();
  return { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v) };
}

describe('the page redeems a one-time launch link', () => {
  let dir: string;
  let host: Host;
  let server: BrowserServer;
  // What a browser does on the page's own origin: relative URL, and the Origin header it always adds.
  const pageFetch = (input: string, init: RequestInit) => fetch(new URL(input, server.origin), { ...init, headers: { ...(init.headers as Record<string, string>), origin: server.origin } });

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-launch-'));
    fs.mkdirSync(path.join(dir, 'renderer'));
    fs.writeFileSync(path.join(dir, 'renderer', 'index.html'), '<!doctype html>');
    host = await createHost({ dataDir: path.join(dir, 'data'), shell: 'browser' });
    server = await startBrowserServer({ host, staticDir: path.join(dir, 'renderer') });
  });
  afterEach(async () => {
    await server.close();
    await host.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stores the session token once, and that token reaches the host over the WebSocket', async () => {
    const storage = memoryStorage();
    const hash = new URL(server.launchUrl()).hash;
    expect(await redeemLaunchLink(hash, storage, pageFetch)).toEqual({ kind: 'stored' });
    const token = readToken(storage);
    expect(token).toBe(server.token);
    const client = await connectHost({ port: server.port, token: token ?? '' });
    expect(await client.request('host.info', {})).toMatchObject({ app: 'steward' });
    client.close();
  });

  it('a reused link leaves the stored token alone and tells the person to get a new link', async () => {
    const hash = new URL(server.launchUrl()).hash;
    expect(await redeemLaunchLink(hash, memoryStorage(), pageFetch)).toEqual({ kind: 'stored' });
    const second = memoryStorage();
    const outcome = await redeemLaunchLink(hash, second, pageFetch);
    expect(outcome).toEqual({ kind: 'refused', message: expect.stringMatching(/already used.*npm start/s) });
    expect(readToken(second)).toBeNull();
  });

  it('a page without a launch link asks nothing of the host', async () => {
    let calls = 0;
    const counting = (input: string, init: RequestInit) => {
      calls++;
      return pageFetch(input, init);
    };
    expect(await redeemLaunchLink('#/runs', memoryStorage(), counting)).toEqual({ kind: 'none' });
    expect(calls).toBe(0);
  });

  it('an unreachable host is a message, not an unhandled rejection', async () => {
    const hash = new URL(server.launchUrl()).hash;
    await server.close();
    const outcome = await redeemLaunchLink(hash, memoryStorage(), pageFetch);
    expect(outcome).toEqual({ kind: 'refused', message: expect.stringMatching(/could not reach the Steward host/i) });
  });
});
