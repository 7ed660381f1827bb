import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventId } from '@shared/contracts/events';
import { HistoryDamagedError } from './history-db';
import { openHistory } from './open-history';

/** Issue 26's faults: a host killed mid-write, a damaged database file. Real processes, a real database. */

const ROOT = path.resolve(__dirname, '../..');
const STORM = path.join(ROOT, 'test-support/history-storm-child.ts');
// The storm's child bundled once (esbuild, as the conformance suite's client is), so each of its 50
// starts is plain Node: under a TypeScript loader, starting took most of each kill's time. In
// node_modules/.cache so that its packages resolve; one per test process, which may run side by side.
const STORM_BUNDLE = path.join(ROOT, `node_modules/.cache/steward-history-faults/history-storm-child-${process.pid}.mjs`);
const tsxEnv = { ...process.env, TSX_TSCONFIG_PATH: path.resolve(__dirname, '../../tsconfig.main.json') };

beforeAll(async () => {
  await build({ entryPoints: [STORM], outfile: STORM_BUNDLE, bundle: true, platform: 'node', format: 'esm', packages: 'external', alias: { '@shared': path.join(ROOT, 'src-shared') }, logLevel: 'warning' });
}, 60_000);
afterAll(() => fs.rmSync(STORM_BUNDLE, { force: true }));

describe('the history under faults', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-history-faults-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('SIGKILLed at random points of a write storm (50 times): every event a page was told of is there, none twice, the database opens', async () => {
    let position = 0;
    for (let kill = 0; kill < 50; kill++) {
      const runId = `run-storm-${String(kill).padStart(4, '0')}`;
      const child = spawn(process.execPath, [STORM_BUNDLE, dir, runId], { stdio: ['ignore', 'pipe', 'inherit'] });
      let lastTold = '';
      // Killed somewhere between its first batches and a few hundred: a random moment of the storm.
      const after = Math.floor(Math.random() * 200);
      let seen = 0;
      // Told in position order, each slice following the last (deferred syncs and synced commits mixed).
      const chain: Array<[number, number]> = [];
      await new Promise<void>((resolve) => {
        createInterface({ input: child.stdout! }).on('line', (text) => {
          if (!text.startsWith('told ')) return;
          const [id, pos, from] = text.slice(5).split(' ');
          lastTold = `${id} ${pos}`;
          chain.push([Number(from), Number(pos)]);
          seen += 1;
          if (seen > after && child.exitCode === null) child.kill('SIGKILL');
        });
        child.once('exit', () => resolve());
      });
      expect(child.signalCode).toBe('SIGKILL');
      expect(chain[0]?.[0]).toBe(position);
      for (let i = 1; i < chain.length; i++) expect(chain[i]![0]).toBe(chain[i - 1]![1]);
      const [toldId, toldPos] = lastTold.split(' ');
      const history = openHistory(dir, { log: () => undefined });
      // What the page was told is there, at the position it was told.
      expect(history.eventById(toldId!)).toBeDefined();
      expect(history.read(Number(toldPos) - 1, 1).events[0]?.id).toBe(toldId);
      // Nothing twice, no gap: the run's events are seq 0..n-1 at consecutive positions after the last run's.
      const events = history.runEvents(runId);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
      expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
      expect(history.read(position, 1).events[0]?.id).toBe(eventId(runId, 0));
      position = history.head;
      expect(history.count).toBe(position);
      history.close();
    }
  }, 240_000);

  it('disk full during a write: a clear error, nothing of the batch stored, and the history intact and still readable', async () => {
    const FILL = path.resolve(__dirname, '../../test-support/history-fill-child.ts');
    // A full disk as the process sees it: a file size limit (ulimit -f, in KiB) on the database's files.
    const child = spawn('bash', ['-c', `ulimit -f 4096; exec "${process.execPath}" --import tsx "${FILL}" "${dir}"`], { stdio: ['ignore', 'pipe', 'inherit'], env: tsxEnv });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const { told, error } = JSON.parse(out.trim()) as { told: number; error: string };
    expect(told).toBeGreaterThan(100);
    // A file size limit fails the write with EFBIG (SQLite: an I/O error); a full disk, with ENOSPC (SQLITE_FULL): both said in words.
    expect(error).toMatch(/Could not write to the history database .*: the disk (is full|refused the write \(it may be full or failing\))\. Nothing of these events was stored; the history is as it was\. Free some space/);
    const history = openHistory(dir, { log: () => undefined });
    expect(history.head).toBe(told);
    expect(history.count).toBe(told);
    const last = history.read(told - 1, 1).events[0]!;
    expect(history.runEvents(last.run_id)).toHaveLength(20); // whole batches only
    history.close();
  }, 60_000);

  it('a damaged database file is refused in words and left exactly as it was: nothing starts over silently', () => {
    const history = openHistory(dir, { log: () => undefined });
    history.append([{ type: 'round.started', id: eventId('run-damaged-01', 0), run_id: 'run-damaged-01', seq: 0, ts: new Date(0).toISOString(), round: 0, proposer: 'student' }]);
    history.close();
    const file = path.join(dir, 'history.sqlite');
    // Scribble over the header and the first pages.
    const bytes = fs.readFileSync(file);
    bytes.fill(0x5a, 0, Math.min(bytes.length, 8192));
    fs.writeFileSync(file, bytes);
    const before = fs.readFileSync(file);
    let failure: unknown;
    try {
      openHistory(dir, { log: () => undefined }).close();
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(HistoryDamagedError);
    expect((failure as Error).message).toMatch(/damaged.*left exactly as it is.*Move it out of the data folder/s);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });
});
