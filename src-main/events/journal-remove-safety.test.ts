import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventId, type RunEvent } from '@shared/contracts/events';
import Database from 'better-sqlite3';
import { EventJournal, JournalRewriteError } from './event-journal';

/** `remove` changes nothing when it fails, and loses no append made around it. */

const ts = new Date(0).toISOString();
const started = (run: string, seq: number): RunEvent => ({ type: 'round.started', id: eventId(run, seq), run_id: run, seq, ts, round: seq, proposer: 'student' });
const quiet = { log: () => undefined };

/** Every event the journal holds, with its position, read back one slice at a time. */
function held(j: EventJournal): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  let after = 0;
  for (;;) {
    const slice = j.read(after, 700);
    if (slice.events.length === 0) return out;
    let pos = slice.after;
    // Positions of a slice are consecutive except where runs were removed: read one by one to know each.
    for (const event of slice.events) {
      const one = j.read(pos, 1);
      pos = one.position;
      out.push([pos, event.id]);
    }
    after = slice.position;
  }
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('EventJournal.remove, when things go wrong or happen at once', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-remove-safety-'));
    file = path.join(dir, 'history.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a failed removal deletes nothing, on disk or in memory, and says what happened', async () => {
    const j = EventJournal.open(file, { ...quiet, busyTimeoutMs: 50 });
    j.append([started('run-keep', 0), started('run-gone', 0), started('run-keep', 1), started('run-gone', 1)]);
    const positions = held(j);
    // A real failure: another process holds the database's write lock past the busy timeout.
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');

    const failure = await j.remove(['run-gone']).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(JournalRewriteError);
    expect((failure as Error).message).toMatch(/locked.*nothing was deleted.*try again/s);

    other.exec('ROLLBACK');
    other.close();
    expect(j.hasRun('run-gone')).toBe(true);
    expect(held(j)).toEqual(positions);
    expect(j.deletedSince(0)).toEqual([]);
    expect(j.head).toBe(4);
    // The journal goes on working, and once the cause is gone the same removal succeeds.
    expect(j.append([started('run-keep', 2)])).toBe(1);
    expect(await j.remove(['run-gone'])).toEqual({ run_ids: ['run-gone'], at: 5 });
    expect(held(j).map(([, id]) => id)).toEqual([eventId('run-keep', 0), eventId('run-keep', 1), eventId('run-keep', 2)]);
    j.close();
    const again = EventJournal.open(file, quiet);
    expect(again.hasRun('run-gone')).toBe(false);
    expect(again.deletedSince(0)).toEqual(['run-gone']);
    again.close();
  });

  it('events appended during a remove are all kept, in order, exactly once (also after a reopen)', async () => {
    const j = EventJournal.open(file, quiet);
    // Large enough that the copy spans many turns of the event loop.
    for (let chunk = 0; chunk < 6; chunk++) j.append(Array.from({ length: 2_000 }, (_, i) => started(chunk % 2 === 0 ? 'run-gone' : 'run-old-1', chunk * 2_000 + i)));
    const oldKept = held(j).filter(([, id]) => id.startsWith('run-old-1'));
    const removal = j.remove(['run-gone']);
    let settled = false;
    void removal.finally(() => (settled = true));
    const appended: string[] = [];
    let seq = 0;
    while (!settled) {
      const event = started('run-new-1', seq++);
      j.append([event]);
      appended.push(event.id);
      await tick();
    }
    expect(await removal).toEqual({ run_ids: ['run-gone'], at: expect.any(Number) as number });
    expect(appended.length).toBeGreaterThanOrEqual(1);
    const expected = [...oldKept.map(([, id]) => id), ...appended];
    expect(held(j).map(([, id]) => id)).toEqual(expected);
    expect(held(j).map(([pos]) => pos)).toEqual([...held(j).map(([pos]) => pos)].sort((a, b) => a - b));
    // And appends go on after it, into the new file.
    j.append([started('run-new-1', seq)]);
    j.close();
    const again = EventJournal.open(file, quiet);
    expect(held(again).map(([, id]) => id)).toEqual([...expected, eventId('run-new-1', seq)]);
    expect(again.hasRun('run-gone')).toBe(false);
    again.close();
  });

  it('a journal closed before its removal runs deletes nothing', async () => {
    const j = EventJournal.open(file, quiet);
    j.append(Array.from({ length: 3_000 }, (_, i) => started(i % 2 ? 'run-aaaa' : 'run-bbbb', i)));
    const removal = j.remove(['run-aaaa']).catch((error: unknown) => error);
    j.close();
    expect(await removal).toBeInstanceOf(JournalRewriteError);
    const again = EventJournal.open(file, quiet);
    expect(again.hasRun('run-aaaa')).toBe(true);
    expect(again.count).toBe(3_000);
    again.close();
  });

  it('property: any interleaving of appends and removes keeps exactly the events of runs not removed, in order, at their positions', async () => {
    const Step = fc.oneof(
      fc.record({ kind: fc.constant('append' as const), run: fc.integer({ min: 0, max: 5 }), count: fc.integer({ min: 1, max: 40 }) }),
      fc.record({ kind: fc.constant('remove' as const), runs: fc.uniqueArray(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 3 }) }),
      fc.record({ kind: fc.constant('tick' as const) }),
    );
    let trial = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(Step, { maxLength: 25 }), async (steps) => {
        const journalFile = path.join(dir, `p${trial++}.sqlite`);
        const j = EventJournal.open(journalFile, quiet);
        // Enough events that a removal's copy takes several turns of the event loop.
        j.append(Array.from({ length: 1_200 }, (_, i) => started('run-filler', i)));
        // The model: a run once removed gets a fresh id (generation), so its later events are another run's.
        const generation = new Map<number, number>();
        const runId = (n: number) => `run-${n}-g${generation.get(n) ?? 0}`;
        const nextSeq = new Map<string, number>();
        const model: Array<[number, string, string]> = j.read(0, 2_000).events.map((e, i) => [i + 1, e.run_id, e.id]);
        const removed = new Set<string>();
        const removals: Array<Promise<unknown>> = [];
        let pos = 1_200;
        for (const step of steps) {
          if (step.kind === 'tick') await tick();
          else if (step.kind === 'append') {
            const run = runId(step.run);
            const first = nextSeq.get(run) ?? 0;
            const events = Array.from({ length: step.count }, (_, i) => started(run, first + i));
            nextSeq.set(run, first + step.count);
            j.append(events);
            for (const e of events) model.push([++pos, run, e.id]);
          } else {
            const runs = step.runs.map(runId);
            for (const run of runs) removed.add(run);
            for (const n of step.runs) generation.set(n, (generation.get(n) ?? 0) + 1);
            removals.push(j.remove(runs));
          }
        }
        await Promise.all(removals);
        const expected = model.filter(([, run]) => !removed.has(run)).map(([p, , id]): [number, string] => [p, id]);
        expect(held(j)).toEqual(expected);
        j.close();
        const again = EventJournal.open(journalFile, quiet);
        expect(again.loadReport).toMatchObject({ invalidLines: 0, tornTail: false });
        expect(held(again)).toEqual(expected);
        expect(again.head).toBe(pos);
        again.close();
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
