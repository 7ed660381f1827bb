import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHost } from './create-host';

/** Two `npm start`s on one data folder would resume the same waiting run twice: the second refuses. */

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-one-host-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('one host per data folder', () => {
  it('a second host on the same folder refuses to start, naming the first one’s pid and shell', async () => {
    const first = await createHost({ dataDir: dir, shell: 'browser' });
    try {
      await expect(createHost({ dataDir: dir, shell: 'electron' })).rejects.toThrow(new RegExp(`in use by the browser shell \\(pid ${process.pid}`));
    } finally {
      await first.close();
    }
    // Closed: the folder is free again.
    const next = await createHost({ dataDir: dir, shell: 'electron' });
    await next.close();
  });

  it('a host killed with SIGKILL leaves its lock behind, and the next start recovers it', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../../test-support/hold-host.ts'), dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TSX_TSCONFIG_PATH: path.resolve(__dirname, '../../tsconfig.main.json') },
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`holder exited early (${code})`)));
    });
    await expect(createHost({ dataDir: dir, shell: 'browser' })).rejects.toThrow(new RegExp(`pid ${child.pid}`));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const lines: string[] = [];
    const host = await createHost({ dataDir: dir, shell: 'browser', log: (line) => lines.push(line) });
    await host.close();
    expect(lines.join('\n')).toMatch(new RegExp(`stale lock.*pid ${child.pid}`));
  }, 60_000);
});
