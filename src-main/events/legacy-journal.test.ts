import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventId, type RunEvent } from '@shared/contracts/events';
import { openHistory } from './open-history';

/** Issue 26: a data folder an older Steward wrote (outbox.jsonl) moves into the history database at the first start. */

const ts = new Date(0).toISOString();
const step = (run: string, seq: number): RunEvent => ({ type: 'round.started', id: eventId(run, seq), run_id: run, seq, ts, round: seq, proposer: 'student' });
const end = (run: string, seq: number, status: 'completed' | 'failed' = 'completed'): RunEvent => ({ type: 'run.finished', id: eventId(run, seq), run_id: run, seq, ts, status, rounds: 1, event_count: seq + 1 });
const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const CHILD = path.resolve(__dirname, '../../test-support/open-history-child.ts');

describe('moving an old journal into the history database', () => {
  let dir: string;
  let legacy: string;
  const logs: string[] = [];
  const log = (text: string) => logs.push(text);
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-legacy-'));
    legacy = path.join(dir, 'outbox.jsonl');
    logs.length = 0;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('every line kind carries over: identity, positions, open runs, imports, tombstones and the compaction mark; the old file is kept as a backup', () => {
    fs.writeFileSync(
      legacy,
      [
        line({ k: 'journal', id: 'journal-of-2025' }),
        line({ k: 'run', run_id: 'run-open-older', next_seq: 7, rounds: 2 }),
        line({ k: 'imported', run_ids: ['run-imported'] }),
        line({ k: 'compacted', through: 3 }),
        line({ k: 'deleted', run_ids: ['run-deleted'], at: 8 }),
        line({ k: 'event', pos: 5, event: step('run-done-0001', 0) }),
        line({ k: 'event', pos: 6, event: end('run-done-0001', 1) }),
        line({ k: 'event', pos: 9, event: step('run-imported', 0) }),
        line({ k: 'ack', ids: [eventId('run-done-0001', 0)] }),
      ].join(''),
    );
    const history = openHistory(dir, { log });
    expect(history.id).toBe('journal-of-2025');
    // The imported run is still known as imported: a page reading it is told so.
    expect(history.read(0, 10)).toEqual({ events: [step('run-done-0001', 0), end('run-done-0001', 1), step('run-imported', 0)], after: 0, position: 9, imported: ['run-imported'] });
    expect(history.read(5, 1).position).toBe(6);
    expect(history.openRuns()).toEqual([{ run_id: 'run-open-older', next_seq: 7, rounds: 2 }]);
    expect(history.importedOpenRuns()).toEqual([{ run_id: 'run-imported', next_seq: 1, rounds: 0 }]);
    expect(history.isImported('run-imported')).toBe(true);
    expect(history.deletedSince(0)).toEqual(['run-deleted']);
    expect(history.compactedThrough).toBe(3);
    expect(history.run('run-done-0001')?.run.status).toBe('completed');
    // Positions kept though the tombstone (made at 8) came first: the next is past both.
    history.append([step('run-new-00001', 0)]);
    expect(history.head).toBe(10);
    expect(history.read(9, 1).events[0]?.id).toBe(eventId('run-new-00001', 0));
    history.close();

    expect(fs.existsSync(legacy)).toBe(false);
    expect(fs.readFileSync(`${legacy}.migrated`, 'utf8')).toContain('journal-of-2025');
    expect(logs.join('\n')).toMatch(/3 events, 3 runs; 3 event lines read: 3 moved, 0 repeats, 0 refused\); the old file is kept as .*outbox\.jsonl\.migrated/s);
    // Opened again: nothing moves twice.
    const again = openHistory(dir, { log });
    expect(again.count).toBe(4);
    again.close();
  });

  it('an outbox from before positions and the journal: bare events and events without positions get theirs in file order', () => {
    fs.writeFileSync(legacy, [line(step('run-bare-0001', 0)), line({ k: 'event', event: step('run-bare-0001', 1) }), line(end('run-bare-0001', 2))].join(''));
    const history = openHistory(dir, { log });
    expect(history.read(0, 10)).toEqual({ events: [step('run-bare-0001', 0), step('run-bare-0001', 1), end('run-bare-0001', 2)], after: 0, position: 3 });
    expect(history.openRuns()).toEqual([]);
    history.close();
  });

  it('a torn last line and unreadable lines are skipped, counted and kept aside; a doubled step and a second end (a leftover spool) are not taken in', () => {
    fs.writeFileSync(
      legacy,
      [
        '{not json\n',
        line({ k: 'event', pos: 1, event: step('run-twice-001', 0) }),
        line({ k: 'event', pos: 2, event: { ...step('run-twice-001', 1), type: 'round.exploded' } }),
        line({ k: 'event', pos: 3, event: end('run-twice-001', 1) }),
        // What a leftover spool appended: the same places again, and a second end saying "failed".
        line({ k: 'event', pos: 4, event: { ...step('run-twice-001', 0), id: 'run-twice-001:other' } }),
        line({ k: 'event', pos: 5, event: { ...end('run-twice-001', 2, 'failed') } }),
        JSON.stringify({ k: 'event', pos: 6, event: step('run-twice-001', 3) }).slice(0, 40),
      ].join(''),
    );
    const history = openHistory(dir, { log });
    expect(history.loadReport).toEqual({ events: 2, invalidLines: 2, tornTail: true });
    expect(history.runEvents('run-twice-001')).toEqual([step('run-twice-001', 0), end('run-twice-001', 1)]);
    expect(history.run('run-twice-001')?.run.status).toBe('completed');
    expect(fs.readFileSync(`${legacy}.invalid`, 'utf8').trim().split('\n')).toHaveLength(2);
    expect(logs.join('\n')).toMatch(/skipped 2 event\(s\) of the old journal at a place their run already held/);
    history.close();
  });

  it('killed half-way, the move resumes where it stopped: every event once, at its position, and the counts agree', async () => {
    const runs = 400;
    const perRun = 300;
    const out = fs.createWriteStream(legacy);
    out.write(line({ k: 'journal', id: 'big-journal' }));
    let pos = 0;
    for (let r = 0; r < runs; r++) {
      const run = `run-big-${String(r).padStart(5, '0')}`;
      const chunk: string[] = [];
      for (let s = 0; s < perRun; s++) chunk.push(line({ k: 'event', pos: ++pos, event: step(run, s) }));
      out.write(chunk.join(''));
    }
    await new Promise<void>((resolve) => out.end(resolve));

    // A first start, killed the moment it reports progress.
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TSX_TSCONFIG_PATH: path.resolve(__dirname, '../../tsconfig.main.json') },
    });
    const said: string[] = [];
    await new Promise<void>((resolve) => {
      createInterface({ input: child.stdout! }).on('line', (text) => {
        said.push(text);
        if (/moved \d+%/.test(text) && child.exitCode === null) child.kill('SIGKILL');
      });
      child.once('exit', () => resolve());
    });
    expect(child.signalCode).toBe('SIGKILL');
    expect(said.some((text) => /moving of the event journal/.test(text))).toBe(true);
    expect(fs.existsSync(legacy)).toBe(true); // not done: the old file is still where it was

    const history = openHistory(dir, { log });
    expect(logs[0]).toMatch(/resuming the move .* from \d+%/);
    expect(history.id).toBe('big-journal');
    expect(history.count).toBe(runs * perRun);
    expect(history.head).toBe(runs * perRun);
    expect(history.read(runs * perRun - 1, 5).events).toEqual([step(`run-big-${String(runs - 1).padStart(5, '0')}`, perRun - 1)]);
    expect(history.runsPage({ limit: 1000 }).runs).toHaveLength(runs);
    expect(history.run('run-big-00007')?.events).toBe(perRun);
    history.close();
    expect(fs.existsSync(`${legacy}.migrated`)).toBe(true);
  }, 120_000);
});
