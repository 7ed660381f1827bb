import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forwardedDataDir } from '../cli/forwarded-command';
import { socketPathFor } from './channel-address';
import { forwardToHost } from './channel-client';
import { openCliChannel, type CliChannel } from './channel-server';
import { textPieces } from './json-lines';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function channelRunning(run: Parameters<typeof openCliChannel>[0]['run']): Promise<{ dataDir: string; channel: CliChannel }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-frames-'));
  const channel = await openCliChannel({ dataDir, shell: 'browser', run, fold: () => 0, log: () => undefined });
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }), () => channel.close());
  return { dataDir, channel };
}

describe('the channel carries what a command prints and asks, whole', () => {
  it('a 10 MB answer arrives byte for byte (in pieces no frame refuses), emoji across piece edges included', async () => {
    const big = `${'x'.repeat(512 * 1024 - 1)}😀${'é'.repeat(3_000_000)}${'y'.repeat(7_000_000)}`;
    const { dataDir } = await channelRunning(async (_argv, io) => {
      io.stdout(big);
      return 0;
    });
    let stdout = '';
    const code = await forwardToHost(['run', 'x'], { stdout: (t) => (stdout += t), stderr: () => undefined, env: {}, cwd: '/' }, dataDir);
    expect(code).toBe(0);
    expect(stdout.length).toBe(big.length);
    expect(stdout === big).toBe(true);
  });

  it('the host\'s questions reach the person at the command, and their answers come back; with no terminal there is no question', async () => {
    const { dataDir } = await channelRunning(async (argv, io) => {
      if (!io.ask || !io.line) {
        io.stderr('nobody to ask\n');
        return 3;
      }
      const yes = await io.ask('Allow?');
      const line = await io.line('Reply: ');
      io.stdout(`${yes} ${line ?? '(left)'} ${argv.join(' ')} ${io.cwd}\n`);
      return 0;
    });
    let stdout = '';
    const asked: string[] = [];
    const code = await forwardToHost(['answer', 'r1'], { stdout: (t) => (stdout += t), stderr: () => undefined, env: {}, cwd: '/tmp', ask: async (q) => (asked.push(q), true), line: async (q) => (asked.push(q), 'the notes') }, dataDir);
    expect(code).toBe(0);
    expect(asked).toEqual(['Allow?', 'Reply: ']);
    expect(stdout).toBe('true the notes answer r1 /tmp\n');
    let stderr = '';
    expect(await forwardToHost(['answer', 'r1'], { stdout: () => undefined, stderr: (t) => (stderr += t), env: {}, cwd: '/' }, dataDir)).toBe(3);
    expect(stderr).toBe('nobody to ask\n');
  });

  it('only the whitelisted environment crosses: OLLAMA_HOST and STEWARD_* yes, a secret no', async () => {
    const { dataDir } = await channelRunning(async (_argv, io) => {
      io.stdout(`${io.env.OLLAMA_HOST ?? '-'} ${io.env.STEWARD_X ?? '-'} ${io.env.MY_SECRET_TOKEN ?? '-'}\n`);
      return 0;
    });
    let stdout = '';
    await forwardToHost(['run', 'x'], { stdout: (t) => (stdout += t), stderr: () => undefined, env: { OLLAMA_HOST: 'http://127.0.0.1:1', STEWARD_X: 'y', MY_SECRET_TOKEN: 'sk-planted' }, cwd: '/' }, dataDir);
    expect(stdout).toBe('http://127.0.0.1:1 y -\n');
  });

  it('closing the host cancels a forwarded command that is still running: it ends with its own code', async () => {
    const { dataDir, channel } = await channelRunning(
      (_argv, io) =>
        new Promise<number>((resolve) => {
          io.stdout('started\n');
          io.signal.addEventListener('abort', () => resolve(1));
        }),
    );
    let stdout = '';
    const code = forwardToHost(['run', 'x'], { stdout: (t) => (stdout += t), stderr: () => undefined, env: {}, cwd: '/' }, dataDir);
    while (!stdout.includes('started')) await new Promise((resolve) => setTimeout(resolve, 10));
    await channel.close();
    expect(await code).toBe(1);
  });
});

describe('which commands go to the app, on which folder', () => {
  it('run, dry-run, answer, runs and workflows go, on --data-dir (either spelling) read where typed, else the default folder', () => {
    expect(forwardedDataDir(['run', 'x.json', '--data-dir', 'd'], {}, '/home/me')).toBe('/home/me/d');
    expect(forwardedDataDir(['runs', 'waiting', '--data-dir=/abs'], {}, '/home/me')).toBe('/abs');
    expect(forwardedDataDir(['workflows', 'list'], { STEWARD_DATA_DIR: '/env/dir' }, '/')).toBe('/env/dir');
    expect(forwardedDataDir(['answer', 'r', 'reply', '--', '--data-dir', 'not-this'], { STEWARD_DATA_DIR: '/env' }, '/')).toBe('/env');
  });

  it('help, validate, credentials and the rest always run here', () => {
    for (const argv of [['validate', 'x'], ['credentials', 'list'], ['run', '--help'], ['runs', 'help'], ['--version'], []]) expect(forwardedDataDir(argv, {}, '/')).toBeUndefined();
  });

  it('a data folder too deep for a socket path gets a short one elsewhere; Windows gets a named pipe', () => {
    const deep = `/tmp/${'d'.repeat(120)}`;
    expect(socketPathFor('/tmp/x')).toBe('/tmp/x/steward.sock');
    expect(Buffer.byteLength(socketPathFor(deep, 'linux', {}))).toBeLessThanOrEqual(100);
    expect(socketPathFor(deep, 'linux', {})).not.toBe(socketPathFor(`${deep}2`, 'linux', {}));
    expect(socketPathFor('C:\\Users\\me\\Steward', 'win32', {})).toMatch(/^\\\\\.\\pipe\\steward-[0-9a-f]{24}$/);
  });

  it('text is cut into pieces that never split a surrogate pair', () => {
    const text = `${'a'.repeat(9)}😀${'b'.repeat(5)}`;
    const pieces = textPieces(text, 10);
    expect(pieces.join('')).toBe(text);
    expect(pieces.every((p) => !/[\uD800-\uDBFF]$/.test(p))).toBe(true);
  });
});
