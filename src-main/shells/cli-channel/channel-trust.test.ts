import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { channelFile, newChannelToken, writeChannelAddress } from './channel-address';
import { forwardToHost } from './channel-client';

/**
 * Issue 27: a command hands the host its channel token, command line, folder and environment only
 * over the channel the user's own host made. A planted symlink (channel file or socket) or a file
 * others may read is refused in words, before anything is sent. The "other process" is a real socket
 * server that records whatever reaches it.
 */
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-trust-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Another process's socket: it records every byte a client sends it. */
async function listener(path: string): Promise<{ received: () => string }> {
  let received = '';
  const server: Server = createServer((socket) => {
    socket.on('data', (data: Buffer) => (received += data.toString()));
    socket.end('{"kind":"exit","code":0}\n');
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  chmodSync(path, 0o600);
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { received: () => received };
}

async function forward(dataDir: string) {
  let stderr = '';
  const code = await forwardToHost(['run', 'x.json'], { stdout: () => undefined, stderr: (t) => (stderr += t), env: { STEWARD_SECRET_PROBE: 'x' }, cwd: dataDir }, dataDir);
  return { code, stderr };
}

const address = (path: string) => ({ version: 1 as const, path, token: newChannelToken(), pid: process.pid, shell: 'browser' as const });

describe.skipIf(process.platform === 'win32')('the CLI trusts only its own channel', () => {
  it('a channel file that is a symlink to a file naming another socket is refused; the other socket hears nothing', async () => {
    const dataDir = folder();
    const elsewhere = folder();
    const other = await listener(join(elsewhere, 'other.sock'));
    writeChannelAddress(elsewhere, address(join(elsewhere, 'other.sock')));
    symlinkSync(channelFile(elsewhere), channelFile(dataDir));
    const { code, stderr } = await forward(dataDir);
    expect(code).toBe(2);
    expect(stderr).toMatch(/not handing this command to the Steward host: the channel file .* is a symbolic link.*Nothing was sent/);
    await new Promise((r) => setTimeout(r, 50));
    expect(other.received()).toBe('');
  });

  it('a socket that is a symlink to another process\'s socket is refused; that process hears nothing', async () => {
    const dataDir = folder();
    const elsewhere = folder();
    const other = await listener(join(elsewhere, 'other.sock'));
    symlinkSync(join(elsewhere, 'other.sock'), join(dataDir, 'steward.sock'));
    writeChannelAddress(dataDir, address(join(dataDir, 'steward.sock')));
    const { code, stderr } = await forward(dataDir);
    expect(code).toBe(2);
    expect(stderr).toMatch(/the channel socket .*steward\.sock is a symbolic link/);
    await new Promise((r) => setTimeout(r, 50));
    expect(other.received()).toBe('');
  });

  it('a channel file other accounts may read (0644) is refused, naming its mode', async () => {
    const dataDir = folder();
    const other = await listener(join(dataDir, 'steward.sock'));
    writeChannelAddress(dataDir, address(join(dataDir, 'steward.sock')));
    chmodSync(channelFile(dataDir), 0o644);
    const { code, stderr } = await forward(dataDir);
    expect(code).toBe(2);
    expect(stderr).toMatch(/can be used by other accounts \(mode 0644; the host makes it 0600\)/);
    expect(other.received()).toBe('');
  });

  it('the host\'s own channel (a 0600 file naming a 0600 socket) is used: the hello reaches it', async () => {
    const dataDir = folder();
    const host = await listener(join(dataDir, 'steward.sock'));
    writeChannelAddress(dataDir, address(join(dataDir, 'steward.sock')));
    const { code } = await forward(dataDir);
    expect(code).toBe(0);
    await expect.poll(() => host.received()).toContain('"kind":"hello"');
  });

  it('no channel file: nothing to refuse, the command runs here', async () => {
    const dataDir = folder();
    writeFileSync(join(dataDir, 'unrelated'), '');
    expect(await forward(dataDir)).toEqual({ code: undefined, stderr: '' });
  });
});
