import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { z } from 'zod';
import { launchCodeFromHash, LaunchExchangeResponse, TOKEN_REFUSED_CLOSE, webSocketProtocols, WS_PROTOCOL, WS_REFUSAL_PROTOCOL } from '@shared/contracts/bridge';
import { HostInfo, ServerFrame } from '@shared/contracts/host-api';
import { createHost } from '../../composition/create-host';
import { openBrowser, openCommand } from '../open-browser';
import { runBrowserShell, type BrowserShellIo } from './run-browser-shell';

// zod 4 refuses ServerFrame itself (two options share the discriminator "response"): parse its options.

describe('browser-run shell', () => {
  let dir: string;
  let staticDir: string;
  let dataDir: string;
  let out: string;
  let err: string;
  // No CI flag and no display: the shell must not try to open a browser from a test.
  const io = (): BrowserShellIo => ({ stdout: (text) => (out += text), stderr: (text) => (err += text), env: {}, platform: 'linux' });

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-shell-'));
    staticDir = path.join(dir, 'renderer');
    dataDir = path.join(dir, 'data');
    fs.mkdirSync(staticDir);
    fs.writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><div id="root"></div>');
    out = '';
    err = '';
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('--print-url-json prints exactly one JSON line, and that URL reaches the real host', async () => {
    const outcome = await runBrowserShell(['--print-url-json', '--data-dir', dataDir], io(), { staticDir, createHost, openBrowser });
    if (outcome.kind !== 'running') throw new Error(`expected the shell to run, stderr: ${err}`);
    try {
      const lines = out.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      const printed = z.object({ url: z.string(), port: z.number(), token: z.string(), launch_url: z.string() }).strict().parse(JSON.parse(lines[0] ?? ''));
      expect(printed.launch_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${printed.port}/#launch=[A-Za-z0-9_-]{43}$`));
      expect(printed.url).toBe(`http://127.0.0.1:${printed.port}/#token=${printed.token}`);
      expect(outcome.dataDir).toBe(dataDir);

      const ws = new WebSocket(`ws://127.0.0.1:${printed.port}/api`, webSocketProtocols(printed.token), { origin: `http://127.0.0.1:${printed.port}` });
      const reply = new Promise<unknown>((resolve, reject) => {
        ws.once('message', (data: Buffer) => resolve(JSON.parse(data.toString('utf8'))));
        ws.once('error', reject);
      });
      await new Promise((resolve) => ws.once('open', resolve));
      ws.send(JSON.stringify({ kind: 'request', id: 1, method: 'host.info', params: {} }));
      const frame = ServerFrame.parse(await reply);
      if (frame.kind !== 'response' || !frame.ok) throw new Error(`host.info failed: ${JSON.stringify(frame)}`);
      expect(HostInfo.parse(frame.result)).toMatchObject({ app: 'steward', shell: 'browser' });

      const socketClosed = new Promise((resolve) => ws.once('close', resolve));
      await outcome.stop();
      await socketClosed;
    } finally {
      await outcome.stop();
    }
  });

  it('tells the user where it runs with a one-time link (never the session token), its data folder, plus how to get another and how to stop', async () => {
    const outcome = await runBrowserShell(['--no-open', '--data-dir', dataDir, '--port', '0'], { ...io(), interactive: true }, { staticDir, createHost, openBrowser });
    if (outcome.kind !== 'running') throw new Error(`expected the shell to run, stderr: ${err}`);
    try {
      const link = new RegExp(`^Steward is running at http://127\\.0\\.0\\.1:${outcome.server.port}/#launch=[A-Za-z0-9_-]{43}\nData folder: ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(runs and their history, workflows, settings; --data-dir DIR or STEWARD_DATA_DIR for another\\)\nThe link works once: \`steward open\` opens a new one \\(or press Enter here\\)\\. An open page reconnects by itself when Steward starts again on this folder\\. Press Ctrl\\+C to stop\n$`);
      expect(out).toMatch(link);
      expect(out + err).not.toContain(outcome.server.token);
      const fresh = outcome.newLink();
      expect(fresh).toMatch(/#launch=/);
      expect(out).not.toContain(fresh);
    } finally {
      await outcome.stop();
    }
  });

  it('opens the browser on a one-time link: the opener command never carries the session token, and the link is good once', async () => {
    const opened: string[] = [];
    const outcome = await runBrowserShell(['--data-dir', dataDir], { ...io(), env: { DISPLAY: ':0' } }, { staticDir, createHost, openBrowser: (url) => opened.push(url) });
    if (outcome.kind !== 'running') throw new Error(`expected the shell to run, stderr: ${err}`);
    try {
      expect(opened).toHaveLength(1);
      const url = opened[0] ?? '';
      const command = openCommand(url, 'linux');
      expect(command).not.toBeNull();
      expect([command?.command, ...(command?.args ?? [])].join(' ')).not.toContain(outcome.server.token);
      const code = launchCodeFromHash(new URL(url).hash) ?? '';
      const exchange = () =>
        fetch(`${outcome.server.origin}/launch`, { method: 'POST', headers: { 'content-type': 'application/json', origin: outcome.server.origin }, body: JSON.stringify({ code }) });
      expect(LaunchExchangeResponse.parse(await (await exchange()).json())).toEqual({ ok: true, token: outcome.server.token });
      expect(LaunchExchangeResponse.parse(await (await exchange()).json())).toMatchObject({ ok: false, error: { code: 'launch_used' } });
      // The printed link is a different one-time link: still good after the opener's was spent.
      expect(out).not.toContain(code);
    } finally {
      await outcome.stop();
    }
  });

  it('a restart of the same data folder keeps the session token, so an open page\'s token opens the new host; another folder\'s host refuses it in words the page can read', async () => {
    const first = await runBrowserShell(['--no-open', '--data-dir', dataDir, '--port', '0'], io(), { staticDir, createHost, openBrowser });
    if (first.kind !== 'running') throw new Error(`expected the shell to run, stderr: ${err}`);
    const pageToken = first.server.token;
    await first.stop();
    expect(fs.statSync(path.join(dataDir, 'browser-token')).mode & 0o777).toBe(0o600);

    const again = await runBrowserShell(['--no-open', '--data-dir', dataDir, '--port', '0'], io(), { staticDir, createHost, openBrowser });
    if (again.kind !== 'running') throw new Error(`expected the shell to run again, stderr: ${err}`);
    const other = await runBrowserShell(['--no-open', '--data-dir', path.join(dir, 'other'), '--port', '0'], io(), { staticDir, createHost, openBrowser });
    if (other.kind !== 'running') throw new Error(`expected the other shell to run, stderr: ${err}`);
    try {
      expect(again.server.token).toBe(pageToken);
      const page = (server: { port: number }) =>
        new WebSocket(`ws://127.0.0.1:${server.port}/api`, [...webSocketProtocols(pageToken), WS_REFUSAL_PROTOCOL], { origin: `http://127.0.0.1:${server.port}` });
      const reconnected = page(again.server);
      await new Promise((resolve, reject) => {
        reconnected.once('open', resolve);
        reconnected.once('error', reject);
      });
      expect(reconnected.protocol).toBe(WS_PROTOCOL);
      reconnected.close();

      expect(other.server.token).not.toBe(pageToken);
      const refused = page(other.server);
      const code = await new Promise<number>((resolve) => refused.once('close', (c: number) => resolve(c)));
      expect(code).toBe(TOKEN_REFUSED_CLOSE);
      expect(refused.protocol).toBe(WS_REFUSAL_PROTOCOL);
    } finally {
      await again.stop();
      await other.stop();
    }
  });

  it('refuses an unknown argument with usage and exit code 2, before building a host', async () => {
    expect(await runBrowserShell(['--bogus'], io(), { staticDir, createHost, openBrowser })).toEqual({ kind: 'exit', code: 2 });
    expect(err).toContain('unknown argument "--bogus"');
    expect(err).toContain('Usage:');
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('says the app is not built when the renderer folder is missing', async () => {
    const missing = path.join(dir, 'nowhere');
    expect(await runBrowserShell(['--data-dir', dataDir], io(), { staticDir: missing, createHost, openBrowser })).toEqual({ kind: 'exit', code: 1 });
    expect(err).toContain('npm run build');
  });

  it('reports a taken port as a clear error and exit code 1', async () => {
    const first = await runBrowserShell(['--no-open', '--data-dir', dataDir], io(), { staticDir, createHost, openBrowser });
    if (first.kind !== 'running') throw new Error('expected the first shell to run');
    try {
      const second = await runBrowserShell(['--no-open', '--data-dir', path.join(dir, 'data2'), '--port', String(first.server.port)], io(), {
        staticDir,
        createHost,
        openBrowser,
      });
      expect(second).toEqual({ kind: 'exit', code: 1 });
      expect(err).toContain(`Cannot listen on 127.0.0.1:${first.server.port}`);
    } finally {
      await first.stop();
    }
  });
});
