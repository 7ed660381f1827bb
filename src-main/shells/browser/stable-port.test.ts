import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHost } from '../../composition/create-host';
import { openBrowser } from '../open-browser';
import { runBrowserShell, type BrowserShellIo, type BrowserShellOutcome } from './run-browser-shell';

/** Issue 9: IndexedDB is per origin, so the browser shell's port is part of the app's identity. */

function occupy(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}
const release = (server: net.Server) => new Promise<void>((resolve) => server.close(() => resolve()));
async function freePort(): Promise<number> {
  const server = await occupy(0);
  const address = server.address();
  await release(server);
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('the browser shell keeps its port per data folder', () => {
  let dir: string;
  let staticDir: string;
  let dataDir: string;
  let err: string;
  const io = (): BrowserShellIo => ({ stdout: () => undefined, stderr: (text) => (err += text), env: {}, platform: 'linux' });
  const running: Array<Extract<BrowserShellOutcome, { kind: 'running' }>> = [];
  const start = async (args: string[], defaultPort?: number) => {
    const outcome = await runBrowserShell(['--no-open', '--data-dir', dataDir, ...args], io(), { staticDir, createHost, openBrowser, ...(defaultPort ? { defaultPort } : {}) });
    if (outcome.kind === 'running') running.push(outcome);
    return outcome;
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-port-'));
    staticDir = path.join(dir, 'renderer');
    dataDir = path.join(dir, 'data');
    fs.mkdirSync(staticDir);
    fs.writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><div id="root"></div>');
    err = '';
  });
  afterEach(async () => {
    for (const r of running.splice(0)) await r.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('without --port a later start listens on the port the first one used, so links and the page’s history stay', async () => {
    const wanted = await freePort();
    const first = await start([], wanted);
    if (first.kind !== 'running') throw new Error(err);
    expect(first.server.port).toBe(wanted);
    await first.stop();
    running.length = 0;

    // Another default would not matter now: the data folder remembers its port.
    const again = await start([], await freePort());
    if (again.kind !== 'running') throw new Error(err);
    expect(again.server.port).toBe(wanted);
  });

  it('a first start whose default port is taken picks a free one and keeps it', async () => {
    const taken = await occupy(0);
    const takenPort = (taken.address() as net.AddressInfo).port;
    try {
      const first = await start([], takenPort);
      if (first.kind !== 'running') throw new Error(err);
      expect(first.server.port).not.toBe(takenPort);
      const chosen = first.server.port;
      await first.stop();
      running.length = 0;
      const again = await start([], takenPort);
      expect(again.kind === 'running' && again.server.port).toBe(chosen);
    } finally {
      await release(taken);
    }
  });

  it('the remembered port taken by another program is a clear error naming it and --port, never a silent other port', async () => {
    const first = await start([], await freePort());
    if (first.kind !== 'running') throw new Error(err);
    const port = first.server.port;
    await first.stop();
    running.length = 0;
    const squatter = await occupy(port);
    try {
      expect(await start([])).toEqual({ kind: 'exit', code: 1 });
      expect(err).toContain(`127.0.0.1:${port}`);
      expect(err).toContain('--port');
      expect(err).toContain('browser-port');
    } finally {
      await release(squatter);
    }
  });

  it('--port 0 means any free port and --port N that port; neither changes the remembered one', async () => {
    const remembered = await freePort();
    const first = await start([], remembered);
    if (first.kind !== 'running') throw new Error(err);
    await first.stop();
    running.length = 0;
    const any = await start(['--port', '0']);
    expect(any.kind === 'running' && any.server.port).not.toBe(remembered);
    if (any.kind === 'running') await any.stop();
    running.length = 0;
    const again = await start([]);
    expect(again.kind === 'running' && again.server.port).toBe(remembered);
  });
});
