import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventId, type RunEvent } from '@shared/contracts/events';
import Database from 'better-sqlite3';
import { EventJournal, OPEN_RUNS_SQL, type JournalSlice } from './event-journal';

const RUN = 'run-journal-test';

function roundStarted(seq: number): RunEvent {
  return { type: 'round.started', id: eventId(RUN, seq), run_id: RUN, seq, ts: new Date(0).toISOString(), round: seq, proposer: 'student' };
}
const finished = (seq: number): RunEvent => ({ type: 'run.finished', id: eventId(RUN, seq), run_id: RUN, seq, ts: new Date(0).toISOString(), status: 'completed', rounds: 1, event_count: seq + 1 });

const ids = (events: RunEvent[]) => events.map((event) => event.id);

describe('EventJournal', () => {
  let dir: string;
  let journal: string;
  const logs: string[] = [];
  const log = (line: string) => logs.push(line);

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-journal-'));
    journal = path.join(dir, 'nested', 'history.sqlite');
    logs.length = 0;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('an appended event is on disk before any subscriber hears of it, with the position it keeps', () => {
    const j = EventJournal.open(journal, { log });
    const heard: Array<{ disk: string; slice: JournalSlice }> = [];
    // Another process's view of the database: what it reads is committed.
    const other = new Database(journal, { readonly: true });
    const onDisk = () => other.prepare<[], { id: string }>('SELECT id FROM events ORDER BY pos').all().map((row) => row.id);
    j.subscribe((slice) => heard.push({ disk: onDisk().join(' '), slice }));
    j.append([roundStarted(0), roundStarted(1)]);
    j.append([roundStarted(2)]);
    other.close();
    expect(heard[0]?.disk).toContain(eventId(RUN, 1));
    expect(heard.map((h) => [h.slice.after, h.slice.position])).toEqual([[0, 2], [2, 3]]);
    expect(j.head).toBe(3);
    j.close();
  });

  it('the run count it keeps follows every run added or removed, here or by another connection', async () => {
    const j = EventJournal.open(journal, { log });
    const started = (runId: string): RunEvent => ({ type: 'round.started', id: eventId(runId, 0), run_id: runId, seq: 0, ts: new Date(0).toISOString(), round: 0, proposer: 'student' });
    expect(j.runCount).toBe(0);
    j.append([started('run-count-a'), started('run-count-b')]);
    expect(j.runCount).toBe(2);
    // A repeat adds no run.
    j.append([started('run-count-a')]);
    expect(j.runCount).toBe(2);
    // Another connection (a steward command with no app) adds one: this one's kept count is not used.
    const other = EventJournal.open(journal, { log });
    other.append([started('run-count-c')]);
    other.close();
    expect(j.runCount).toBe(3);
    await j.remove(['run-count-b']);
    expect(j.runCount).toBe(2);
    // Rolled back: the count stays what is stored.
    expect(() => j.appendReport([started('run-count-d')], { within: () => { throw new Error('refused'); } })).toThrow('refused');
    expect(j.runCount).toBe(2);
    const direct = new Database(journal, { readonly: true });
    expect((direct.prepare('SELECT count(*) AS c FROM runs').get() as { c: number }).c).toBe(2);
    direct.close();
    j.close();
  });

  it('keeps every event: reading after a position gives exactly what follows it, in batches', () => {
    const j = EventJournal.open(journal, { log });
    j.append([0, 1, 2, 3, 4].map(roundStarted));
    expect(ids(j.read(0, 100).events)).toEqual([0, 1, 2, 3, 4].map((s) => eventId(RUN, s)));
    expect(j.read(2, 2)).toEqual({ events: [roundStarted(2), roundStarted(3)], after: 2, position: 4 });
    expect(j.read(5, 10)).toEqual({ events: [], after: 5, position: 5 });
    j.close();
  });

  it('after a restart the events, their positions and the journal id are the same, and appends continue', () => {
    const first = EventJournal.open(journal, { log });
    first.append([0, 1, 2].map(roundStarted));
    const { id } = first;
    first.close();
    const again = EventJournal.open(journal, { log });
    expect(again.id).toBe(id);
    expect(again.read(0, 10)).toEqual({ events: [0, 1, 2].map(roundStarted), after: 0, position: 3 });
    again.append([roundStarted(3)]);
    expect(again.read(3, 10)).toEqual({ events: [roundStarted(3)], after: 3, position: 4 });
    again.close();
    expect(EventJournal.open(journal, { log }).read(0, 10).position).toBe(4);
  });

  it('a repeated event id is appended once, also across restarts', () => {
    const j = EventJournal.open(journal, { log });
    expect(j.append([roundStarted(1), roundStarted(1)])).toBe(1);
    j.close();
    const again = EventJournal.open(journal, { log });
    expect(again.append([roundStarted(1), roundStarted(2)])).toBe(1);
    expect(again.count).toBe(2);
    again.close();
  });

  it('an invalid event is refused and nothing of its batch is written', () => {
    const j = EventJournal.open(journal, { log });
    const broken = { ...roundStarted(2), proposer: 'committee' } as unknown as RunEvent;
    expect(() => j.append([roundStarted(1), broken])).toThrow();
    expect(j.head).toBe(0);
    j.close();
    expect(EventJournal.open(journal, { log }).count).toBe(0);
  });

  it('knows which runs have no run.finished, across restarts', () => {
    const j = EventJournal.open(journal, { log });
    j.append([roundStarted(0), roundStarted(1), roundStarted(2)]);
    expect(j.openRuns()).toEqual([{ run_id: RUN, next_seq: 3, rounds: 0 }]);
    j.close();
    const again = EventJournal.open(journal, { log });
    expect(again.openRuns()).toEqual([{ run_id: RUN, next_seq: 3, rounds: 0 }]);
    again.append([finished(3)]);
    again.close();
    expect(EventJournal.open(journal, { log }).openRuns()).toEqual([]);
  });

  it('an unsubscribed listener hears nothing, and a throwing listener does not starve the others', () => {
    const j = EventJournal.open(journal, { log });
    const heard: string[][] = [];
    const unsubscribe = j.subscribe((slice) => heard.push(ids(slice.events)));
    j.subscribe(() => {
      throw new Error('listener broke');
    });
    const late: string[][] = [];
    j.subscribe((slice) => late.push(ids(slice.events)));
    j.append([roundStarted(1)]);
    unsubscribe();
    j.append([roundStarted(2)]);
    expect(heard).toEqual([[eventId(RUN, 1)]]);
    expect(late).toEqual([[eventId(RUN, 1)], [eventId(RUN, 2)]]);
    expect(logs.filter((line) => line.includes('listener broke'))).toHaveLength(2);
    j.close();
  });

  it("a run's row is the same whether its events came one commit each or all in one (a commit that moves only counts leaves the indexed columns)", () => {
    const events = [...[0, 1, 2, 3, 4].map(roundStarted), finished(5)];
    const rowsOf = (file: string, batches: RunEvent[][]) => {
      const j = EventJournal.open(file, { log });
      const rows: unknown[] = [];
      const db = new Database(file, { readonly: true });
      for (const batch of batches) {
        j.append(batch);
        rows.push(db.prepare('SELECT run_id, spec_id, name, status, started_at, finished_at, next_seq, rounds, stored, imported, retention_days, retention_runs, summary FROM runs').all());
      }
      const byStatus = db.prepare("SELECT run_id FROM runs WHERE status = 'completed'").all();
      const open = j.openRuns();
      db.close();
      j.close();
      return { last: rows.at(-1), afterFirst: rows[0], byStatus, open };
    };
    const one = rowsOf(path.join(dir, 'one.sqlite'), events.map((event) => [event]));
    const all = rowsOf(path.join(dir, 'all.sqlite'), [events]);
    expect(one.last).toEqual(all.last);
    expect((one.afterFirst as Array<{ next_seq: number; stored: number }>)[0]).toMatchObject({ next_seq: 1, stored: 1 });
    // The status index saw the run's end, and the run is no longer open.
    expect(one.byStatus).toEqual([{ run_id: RUN }]);
    expect(one.open).toEqual([]);
  });

  it('a closed journal refuses appends and reads with a clear error', () => {
    const j = EventJournal.open(journal, { log });
    j.close();
    expect(() => j.append([roundStarted(1)])).toThrow(/closed/);
    expect(() => j.read(0, 1)).toThrow(/closed/);
  });
  it('finds the open runs by their index, not by reading every run of the history', () => {
    const j = EventJournal.open(journal, { log });
    const event = (runId: string, seq: number, type: 'round.started' | 'run.finished'): RunEvent =>
      type === 'round.started'
        ? { type, id: eventId(runId, seq), run_id: runId, seq, ts: new Date(0).toISOString(), round: 0, proposer: 'student' }
        : { type, id: eventId(runId, seq), run_id: runId, seq, ts: new Date(0).toISOString(), status: 'completed', rounds: 1, event_count: seq + 1 };
    j.append(Array.from({ length: 300 }, (_, i) => [event(`done-run-${i}`, 0, 'round.started'), event(`done-run-${i}`, 1, 'run.finished')]).flat());
    j.append([event('open-run-a', 0, 'round.started'), event('open-run-b', 0, 'round.started')]);
    // At 172,000 runs the planner's own choice (the whole table in rowid order) took 350 ms at every start.
    const plan = j.connection.prepare<[number], { detail: string }>(`EXPLAIN QUERY PLAN ${OPEN_RUNS_SQL}`).all(0).map((row) => row.detail);
    expect(plan.join(' · ')).toContain('USING INDEX runs_open');
    expect(j.openRuns().map((run) => run.run_id)).toEqual(['open-run-a', 'open-run-b']);
    expect(j.importedOpenRuns()).toEqual([]);
    j.close();
  });
});
