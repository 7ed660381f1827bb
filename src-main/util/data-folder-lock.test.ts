import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireDataFolderLock, DataFolderInUseError, DATA_FOLDER_LOCK_FILE } from './data-folder-lock';
import { LockRecord } from './lock-file';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-lock-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has already exited: nothing on this machine answers to it now. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function writeLock(record: Omit<LockRecord, 'id'> & { id?: string }): void {
  fs.writeFileSync(path.join(dir, DATA_FOLDER_LOCK_FILE), JSON.stringify({ id: 'someone-else-0000', ...record }));
}

describe('one Steward per data folder', () => {
  it('a second lock on the same folder is refused, naming the holder: pid, shell and start time', () => {
    const first = acquireDataFolderLock(dir, { shell: 'browser' });
    try {
      let refused: unknown;
      try {
        acquireDataFolderLock(dir, { shell: 'electron' });
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(DataFolderInUseError);
      const message = (refused as Error).message;
      expect(message).toContain(`pid ${process.pid}`);
      expect(message).toContain('browser');
      expect(message).toContain(first.holder.started_at);
      expect(message).toContain(dir);
    } finally {
      first.release();
    }
  });

  it('records who holds it in the lock file, and release frees the folder for the next start', () => {
    const lock = acquireDataFolderLock(dir, { shell: 'browser', port: 4321 });
    const onDisk = LockRecord.parse(JSON.parse(fs.readFileSync(path.join(dir, DATA_FOLDER_LOCK_FILE), 'utf8')));
    expect(onDisk).toMatchObject({ pid: process.pid, hostname: os.hostname(), shell: 'browser', port: 4321 });
    lock.release();
    expect(fs.existsSync(path.join(dir, DATA_FOLDER_LOCK_FILE))).toBe(false);
    acquireDataFolderLock(dir, { shell: 'browser' }).release();
  });

  it('recovers a stale lock whose process is gone from this machine, and says so', () => {
    const pid = deadPid();
    writeLock({ pid, hostname: os.hostname(), started_at: '2020-01-01T00:00:00.000Z', shell: 'browser' });
    const lines: string[] = [];
    const lock = acquireDataFolderLock(dir, { shell: 'electron' }, (line) => lines.push(line));
    expect(lock.holder.pid).toBe(process.pid);
    expect(lines.join('\n')).toMatch(new RegExp(`stale.*pid ${pid}`));
    lock.release();
  });

  it('never takes over a lock held from another machine (it cannot tell whether that process lives)', () => {
    writeLock({ pid: deadPid(), hostname: 'some-other-machine', started_at: '2020-01-01T00:00:00.000Z', shell: 'browser' });
    expect(() => acquireDataFolderLock(dir, { shell: 'browser' })).toThrow(/some-other-machine/);
  });

  it('release leaves a lock that is not its own alone', () => {
    const lock = acquireDataFolderLock(dir, { shell: 'browser' });
    fs.rmSync(path.join(dir, DATA_FOLDER_LOCK_FILE));
    writeLock({ pid: process.pid, hostname: os.hostname(), started_at: 'now', shell: 'electron' });
    lock.release();
    expect(fs.existsSync(path.join(dir, DATA_FOLDER_LOCK_FILE))).toBe(true);
  });

  it('a process killed with SIGKILL leaves a lock the next start recovers', async () => {
    const script = path.resolve(__dirname, '../../test-support/hold-data-folder-lock.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', script, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`holder exited early (${code})`)));
    });
    expect(() => acquireDataFolderLock(dir, { shell: 'browser' })).toThrow(new RegExp(`pid ${child.pid}`));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const lines: string[] = [];
    const lock = acquireDataFolderLock(dir, { shell: 'browser' }, (line) => lines.push(line));
    expect(lines.join('\n')).toContain(`pid ${child.pid}`);
    lock.release();
  });
});
