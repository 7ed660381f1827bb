import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openHistory } from '../events/open-history';
import { historyPath } from '../events/history-db';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() ?? '', { recursive: true, force: true });
});
const mode = (path: string) => statSync(path).mode & 0o777;

describe('the data folder is the user’s alone (issue 27)', () => {
  it.skipIf(process.platform === 'win32')('a new data folder and its history are made 0700 and 0600, and nothing is said', () => {
    const parent = mkdtempSync(join(tmpdir(), 'steward-private-'));
    dirs.push(parent);
    chmodSync(parent, 0o755);
    const dataDir = join(parent, 'steward');
    const lines: string[] = [];
    const history = openHistory(dataDir, { log: (line) => lines.push(line) });
    history.close();
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(historyPath(dataDir))).toBe(0o600);
    expect(lines.filter((l) => l.includes('readable by you alone'))).toEqual([]);
  });

  it.skipIf(process.platform === 'win32')('an older folder others could read (0755, its history 0644) is made private at the first open, said once', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-private-'));
    dirs.push(dataDir);
    openHistory(dataDir, { log: () => undefined }).close();
    writeFileSync(join(dataDir, 'audit.jsonl'), '{}\n');
    chmodSync(dataDir, 0o755);
    chmodSync(historyPath(dataDir), 0o644);
    chmodSync(join(dataDir, 'audit.jsonl'), 0o644);
    const first: string[] = [];
    const history = openHistory(dataDir, { log: (line) => first.push(line) });
    history.append([]);
    history.close();
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(historyPath(dataDir))).toBe(0o600);
    expect(mode(join(dataDir, 'audit.jsonl'))).toBe(0o600);
    expect(first.filter((l) => l.includes('readable by you alone'))).toEqual([
      `made the data folder ${dataDir} readable by you alone: the folder (was 0755) and 2 files in it could be read by other accounts on this machine`,
    ]);
    const again: string[] = [];
    openHistory(dataDir, { log: (line) => again.push(line) }).close();
    expect(again.filter((l) => l.includes('readable by you alone'))).toEqual([]);
  });
});
