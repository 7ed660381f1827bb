import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDataFolderLedger } from './history-ledger';
import { DuplicateExecutionError, LedgerError, createMemoryLedger, idempotencyKey, openFileLedger, type IdempotencyLedger } from './idempotency-ledger';

const meta = { run_id: 'run-1', round: 3, server: 'fs', tool: 'write_file' };
let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-ledger-'));
  file = path.join(dir, 'ledger.jsonl');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('idempotencyKey', () => {
  it('does not depend on argument key order, at any depth', () => {
    const a = idempotencyKey({ ...meta, arguments: { path: '/a', options: { mode: 1, flag: true } } });
    const b = idempotencyKey({ ...meta, arguments: { options: { flag: true, mode: 1 }, path: '/a' } });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs when the run, round, server, tool or arguments differ', () => {
    const base = { ...meta, arguments: { path: '/a' } };
    const keys = new Set([
      idempotencyKey(base),
      idempotencyKey({ ...base, run_id: 'run-2' }),
      idempotencyKey({ ...base, round: 4 }),
      idempotencyKey({ ...base, server: 'fs2' }),
      idempotencyKey({ ...base, tool: 'edit_file' }),
      idempotencyKey({ ...base, arguments: { path: '/b' } }),
    ]);
    expect(keys.size).toBe(6);
  });
});

describe.each([
  ['memory', () => createMemoryLedger()],
  ['file', () => openFileLedger(file)],
  ['history database', () => openDataFolderLedger(dir)],
] as const)('%s ledger', (_name, open: () => IdempotencyLedger) => {
  it('never lets the same key begin twice', () => {
    const ledger = open();
    expect(ledger.state('k1')).toBe('new');
    ledger.begin('k1', meta);
    expect(ledger.state('k1')).toBe('in_flight');
    expect(() => ledger.begin('k1', meta)).toThrow(DuplicateExecutionError);
    ledger.finish('k1', { ok: true, is_error: false });
    expect(ledger.state('k1')).toBe('executed');
    const again = (() => {
      try {
        ledger.begin('k1', meta);
      } catch (e) {
        return e;
      }
    })();
    expect(again).toBeInstanceOf(DuplicateExecutionError);
    expect(again).toMatchObject({ key: 'k1', state: 'executed' });
  });

  it('counts a tool error as executed: it ran', () => {
    const ledger = open();
    ledger.begin('k2', meta);
    ledger.finish('k2', { ok: true, is_error: true });
    expect(ledger.state('k2')).toBe('executed');
  });

  it('refuses to finish a key that is not in flight', () => {
    const ledger = open();
    expect(() => ledger.finish('never-begun', { ok: true, is_error: false })).toThrow(LedgerError);
    ledger.begin('k3', meta);
    ledger.finish('k3', { ok: false, is_error: false });
    expect(() => ledger.finish('k3', { ok: true, is_error: false })).toThrow(LedgerError);
  });
});

describe('file ledger across a restart', () => {
  it('remembers executed and in-flight keys after reopening', () => {
    const first = openFileLedger(file);
    first.begin('done', meta);
    first.finish('done', { ok: true, is_error: false });
    first.begin('crashed-mid-call', { ...meta, round: 4 });

    const reopened = openFileLedger(file);
    expect(reopened.state('done')).toBe('executed');
    expect(reopened.state('crashed-mid-call')).toBe('in_flight');
    expect(reopened.state('fresh')).toBe('new');
    expect(() => reopened.begin('done', meta)).toThrow(DuplicateExecutionError);
    expect(() => reopened.begin('crashed-mid-call', meta)).toThrow(/in flight/);
  });

  it('tolerates a torn last line and keeps appending cleanly after it', () => {
    const first = openFileLedger(file);
    first.begin('done', meta);
    first.finish('done', { ok: true, is_error: false });
    first.begin('pending', meta);
    fs.appendFileSync(file, '{"type":"finish","key":"pend'); // crash mid-append

    const second = openFileLedger(file);
    expect(second.state('done')).toBe('executed');
    expect(second.state('pending')).toBe('in_flight');
    second.begin('after-crash', meta);

    const third = openFileLedger(file);
    expect(third.state('after-crash')).toBe('in_flight');
    expect(third.state('pending')).toBe('in_flight');
    for (const line of fs.readFileSync(file, 'utf8').trimEnd().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('honours a complete last record that lost only its newline', () => {
    const first = openFileLedger(file);
    first.begin('k', meta);
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.trimEnd());
    expect(openFileLedger(file).state('k')).toBe('in_flight');
    expect(fs.readFileSync(file, 'utf8').endsWith('\n')).toBe(true);
  });

  it('refuses to open a journal corrupted before its last line', () => {
    const first = openFileLedger(file);
    first.begin('a', meta);
    first.finish('a', { ok: true, is_error: false });
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines[0] = 'garbage';
    fs.writeFileSync(file, lines.join('\n'));
    expect(() => openFileLedger(file)).toThrow(/line 1 is not JSON/);
  });
});

describe('file ledger shared by several ledgers and processes', () => {
  it('two ledgers on one file never both begin the same key, whichever opened first', () => {
    const a = openFileLedger(file);
    const b = openFileLedger(file); // b's copy was read before a began anything
    a.begin('shared', meta);
    expect(b.state('shared')).toBe('in_flight');
    expect(() => b.begin('shared', meta)).toThrow(DuplicateExecutionError);
    a.finish('shared', { ok: true, is_error: false });
    expect(b.state('shared')).toBe('executed');
    // And the other way round, for a key b begins first.
    b.begin('second', meta);
    expect(() => a.begin('second', meta)).toThrow(/in flight/);
  });

  it.each([
    ['a JSONL file', () => file, () => openFileLedger(file)],
    ['the history database', () => dir, () => openDataFolderLedger(dir)],
  ] as const)('two processes racing over the same keys begin each key exactly once (%s)', async (_name, where, reopen) => {
    const keys = Array.from({ length: 150 }, (_, i) => `race-${i}`);
    const script = path.resolve(__dirname, '../../test-support/race-ledger.ts');
    const racer = () => {
      const child = spawn(process.execPath, ['--import', 'tsx', script, where(), ...keys], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, TSX_TSCONFIG_PATH: path.resolve(__dirname, '../../tsconfig.main.json') },
      });
      let out = '';
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const ready = new Promise<void>((resolve) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.startsWith('ready\n')) resolve();
        });
      });
      const done = new Promise<string[]>((resolve, reject) => {
        child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.slice('ready\n'.length)) as string[]) : reject(new Error(`racer failed (${code}): ${err}`))));
      });
      return { ready, done, go: () => child.stdin.end('go\n') };
    };
    const racers = [racer(), racer()];
    // Both have read the journal (an empty one) before either begins a key.
    await Promise.all(racers.map((r) => r.ready));
    for (const r of racers) r.go();
    const [first, second] = await Promise.all(racers.map((r) => r.done));
    const begun = [...(first ?? []), ...(second ?? [])];
    expect(begun.sort()).toEqual([...keys].sort());
    const journal = reopen();
    for (const key of keys) expect(journal.state(key)).toBe('executed');
  }, 60_000);
});
