import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventId, type RunEvent } from '@shared/contracts/events';
import { EventJournal } from './event-journal';

const ts = new Date(0).toISOString();
const started = (run: string, seq: number): RunEvent => ({ type: 'round.started', id: eventId(run, seq), run_id: run, seq, ts, round: seq, proposer: 'student' });
const finished = (run: string, seq: number): RunEvent => ({ type: 'run.finished', id: eventId(run, seq), run_id: run, seq, ts, status: 'completed', rounds: 1, event_count: seq + 1 });
const positions = (j: EventJournal) => {
  const out: Array<[number, string]> = [];
  let after = 0;
  for (;;) {
    const slice = j.read(after, 1);
    if (slice.events.length === 0) return out;
    out.push([slice.position, slice.events[0]!.id]);
    after = slice.position;
  }
};

describe('EventJournal.remove', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-remove-'));
    file = path.join(dir, 'history.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function journalOfThreeRuns() {
    const j = EventJournal.open(file, { log: () => undefined });
    j.append([started('run-aaaaaaa', 0), started('run-bbbbbbb', 0), started('run-aaaaaaa', 1)]);
    j.append([finished('run-aaaaaaa', 2), started('run-ccccccc', 0), finished('run-bbbbbbb', 1), finished('run-ccccccc', 1)]);
    return j;
  }

  it('removes a run\'s events while the others keep their positions, also after a reopen', async () => {
    const j = journalOfThreeRuns();
    expect(await j.remove(['run-aaaaaaa'])).toEqual({ run_ids: ['run-aaaaaaa'], at: 7 });
    const kept: Array<[number, string]> = [
      [2, eventId('run-bbbbbbb', 0)],
      [5, eventId('run-ccccccc', 0)],
      [6, eventId('run-bbbbbbb', 1)],
      [7, eventId('run-ccccccc', 1)],
    ];
    expect(positions(j)).toEqual(kept);
    // A cursor inside the removed range reads what follows it.
    expect(j.read(3, 10).events.map((e) => e.id)).toEqual(kept.slice(1).map(([, id]) => id));
    j.close();
    const again = EventJournal.open(file, { log: () => undefined });
    expect(again.loadReport).toMatchObject({ invalidLines: 0, tornTail: false });
    expect(positions(again)).toEqual(kept);
    expect(again.deletedSince(0)).toEqual(['run-aaaaaaa']);
    again.close();
  });

  it('never hands out a removed position again: the head stays, also after a reopen', async () => {
    const j = journalOfThreeRuns();
    await j.remove(['run-ccccccc']);
    expect(j.head).toBe(7);
    j.close();
    const again = EventJournal.open(file, { log: () => undefined });
    expect(again.head).toBe(7);
    again.append([started('run-ddddddd', 0)]);
    expect(again.read(6, 10)).toMatchObject({ after: 6, position: 8 });
    again.close();
  });

  it('a removed run\'s ids can come back (an import), which lifts its tombstone', async () => {
    const j = journalOfThreeRuns();
    await j.remove(['run-bbbbbbb', 'run-unknown']);
    expect(j.deletedSince(7)).toEqual(['run-bbbbbbb']);
    expect(j.hasRun('run-bbbbbbb')).toBe(false);
    expect(j.append([started('run-bbbbbbb', 0), finished('run-bbbbbbb', 1)])).toBe(2);
    expect(j.deletedSince(0)).toEqual([]);
    j.close();
    const again = EventJournal.open(file, { log: () => undefined });
    expect(again.deletedSince(0)).toEqual([]);
    expect(again.hasRun('run-bbbbbbb')).toBe(true);
    again.close();
  });

  it('tells its removal listeners which runs went and where the journal stood', async () => {
    const j = journalOfThreeRuns();
    const heard: Array<{ run_ids: string[]; at: number }> = [];
    j.onRemoved((removal) => heard.push(removal));
    await j.remove(['run-ccccccc']);
    await j.remove(['run-nothere']);
    expect(heard).toEqual([{ run_ids: ['run-ccccccc'], at: 7 }]);
    j.close();
  });

  it('a tombstone older than a cursor is not reported to it', async () => {
    const j = journalOfThreeRuns();
    await j.remove(['run-aaaaaaa']);
    j.append([started('run-eeeeeee', 0)]);
    await j.remove(['run-eeeeeee']);
    expect(j.deletedSince(7)).toEqual(['run-aaaaaaa', 'run-eeeeeee']);
    expect(j.deletedSince(8)).toEqual(['run-eeeeeee']);
    j.close();
  });

  it('removes a run whose id needs escaping in JSON, and no other', async () => {
    const odd = 'run-"odd"\\id';
    const j = EventJournal.open(file, { log: () => undefined });
    j.append([started(odd, 0), started('run-plain-1', 0), finished(odd, 1)]);
    expect((await j.remove([odd])).run_ids).toEqual([odd]);
    expect(positions(j).map(([, id]) => id)).toEqual([eventId('run-plain-1', 0)]);
    expect(j.append([started(odd, 0)])).toBe(1);
    j.close();
  });
});
