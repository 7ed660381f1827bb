import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { launchCodeFromHash, LaunchExchangeResponse } from '@shared/contracts/bridge';
import { cliWith } from '../../../test-support/cli-capture';
import { createHost } from '../../composition/create-host';
import { openCliChannel } from '../cli-channel/channel-server';
import { requestLaunchLink } from '../cli-channel/channel-client';
import { openBrowser } from '../open-browser';
import { runBrowserShell, type BrowserShellOutcome } from '../browser/run-browser-shell';
import { EXIT, type CliIo } from './cli-io';
import { openCommand } from './open-command';

/** Issue 28: `steward open` gets a fresh one-time link from the running app, from any terminal, no keypress at the app's. */

const USAGE = 'Usage:\n  steward open [--data-dir DIR] [--print]';

describe('steward open', () => {
  let dir: string;
  let dataDir: string;
  let staticDir: string;
  const cleanups: Array<() => Promise<void> | void> = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-open-'));
    dataDir = path.join(dir, 'data');
    staticDir = path.join(dir, 'renderer');
    fs.mkdirSync(staticDir);
    fs.writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><div id="root"></div>');
  });
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()?.();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The browser-run app (npm start's) on `dataDir`, with its real host and CLI channel. */
  async function appRunning(): Promise<Extract<BrowserShellOutcome, { kind: 'running' }>> {
    const outcome = await runBrowserShell(['--no-open', '--port', '0', '--data-dir', dataDir], { stdout: () => undefined, stderr: () => undefined, env: {}, platform: 'linux' }, { staticDir, createHost, openBrowser });
    if (outcome.kind !== 'running') throw new Error('expected the app to run');
    cleanups.push(() => outcome.stop());
    return outcome;
  }

  function capture(env: NodeJS.ProcessEnv = {}): { io: CliIo; out: { stdout: string; stderr: string } } {
    const out = { stdout: '', stderr: '' };
    return { io: { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t), env }, out };
  }

  const exchange = (origin: string, url: string) =>
    fetch(`${origin}/launch`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ code: launchCodeFromHash(new URL(url).hash) }) }).then(async (r) =>
      LaunchExchangeResponse.parse(await r.json()),
    );

  it('with no app on the data folder it says so and how to start one, exit 1, and opens nothing', async () => {
    const result = await cliWith(['open', '--data-dir', dataDir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `steward: no Steward app is running on the data folder ${dataDir}, so there is no page to open. Start it with \`npm start\` in the Steward folder (\`npm start -- --data-dir ${dataDir}\`): it prints a link and opens it.\n`,
    );
  });

  it('--print against the running app prints one fresh link (and only it) that opens the app once; it never carries the session token', async () => {
    const app = await appRunning();
    const result = await cliWith(['open', '--data-dir', dataDir, '--print']);
    expect(result.code).toBe(EXIT.ok);
    expect(result.stdout).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${app.server.port}/#launch=[A-Za-z0-9_-]{43}\\n$`));
    expect(result.stdout + result.stderr).not.toContain(app.server.token);
    expect(result.stderr).toContain('the link works once, within two minutes');
    const link = result.stdout.trim();
    expect(await exchange(app.server.origin, link)).toEqual({ ok: true, token: app.server.token });
    expect(await exchange(app.server.origin, link)).toMatchObject({ ok: false, error: { code: 'launch_used', message: expect.stringContaining('`steward open`') } });
    // Each call is a new link.
    const second = await cliWith(['open', '--data-dir', dataDir, '--print']);
    expect(second.stdout.trim()).not.toBe(link);
  });

  it('without --print it opens the browser on the same link it printed, where a browser can open', async () => {
    await appRunning();
    const opened: string[] = [];
    const { io, out } = capture({ DISPLAY: ':0' });
    expect(await openCommand(['--data-dir', dataDir], io, USAGE, { requestLink: requestLaunchLink, openBrowser: (url) => opened.push(url), platform: 'linux' })).toBe(EXIT.ok);
    expect(opened).toEqual([out.stdout.trim()]);
    expect(out.stderr).toContain('opening it in your browser');

    // No display (ssh, CI): it prints the link and says to open it; it does not try.
    const headless = capture({});
    expect(await openCommand(['--data-dir', dataDir], headless.io, USAGE, { requestLink: requestLaunchLink, openBrowser: (url) => opened.push(url), platform: 'linux' })).toBe(EXIT.ok);
    expect(opened).toHaveLength(1);
    expect(headless.out.stderr).toContain('no browser can be opened from here');
    expect(headless.out.stdout).toMatch(/#launch=/);
  });

  it('the desktop app on the folder has no page to open: it says to switch to its window, exit 1', async () => {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const channel = await openCliChannel({ dataDir, shell: 'electron', run: async () => 0, fold: () => 0, log: () => undefined });
    cleanups.push(() => channel.close());
    const result = await cliWith(['open', '--data-dir', dataDir]);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe('steward: no link: the Steward app on this data folder is the desktop app, which has no browser page: switch to its window\n');
  });

  it('an answer that is not a one-time link to this machine (a token link, another address) is neither printed nor opened', async () => {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const answers = ['http://127.0.0.1:47800/#token=abcdefghijklmnopqrstuvwxyz', 'http://evil.example:47800/#launch=abcdefghijklmnopqrstuvwxyz', 'file:///etc/passwd'];
    let next = 0;
    const channel = await openCliChannel({ dataDir, shell: 'browser', run: async () => 0, fold: () => 0, log: () => undefined, launchLink: () => answers[next++] });
    cleanups.push(() => channel.close());
    for (const _ of answers) {
      const opened: string[] = [];
      const { io, out } = capture({ DISPLAY: ':0' });
      expect(await openCommand(['--data-dir', dataDir], io, USAGE, { requestLink: requestLaunchLink, openBrowser: (url) => opened.push(url), platform: 'linux' })).toBe(1);
      expect(opened).toEqual([]);
      expect(out.stdout).toBe('');
      expect(out.stderr).toContain('not a one-time link');
    }
  });

  it('--help prints its usage; an unknown flag is bad input (exit 2) with the usage', async () => {
    const help = await cliWith(['open', '--help']);
    expect(help.code).toBe(EXIT.ok);
    expect(help.stdout).toContain('steward open [--data-dir DIR] [--print]');
    expect(help.stdout).toContain('printed and opened');
    const bad = await cliWith(['open', '--bogus']);
    expect(bad.code).toBe(EXIT.badInput);
    expect(bad.stderr).toContain('steward open [--data-dir DIR] [--print]');
  });
});
