import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RunEvent, eventId } from '@shared/contracts/events';
import { EventJournal, type JournalSlice } from './event-journal';
import { createJournalWriter, WINDOW_MS } from './journal-writer';

const RUN = 'run-writer-test';
const ev = (seq: number): RunEvent => ({ type: 'round.started', id: eventId(RUN, seq), run_id: RUN, seq, ts: new Date(0).toISOString(), round: seq, proposer: 'student' });
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("the host's journal writer", () => {
  let dir: string;
  let journal: EventJournal;
  let appends: JournalSlice[];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-writer-'));
    journal = EventJournal.open(path.join(dir, 'history.sqlite'), { log: () => undefined });
    appends = [];
    journal.subscribe((slice) => appends.push(slice));
  });
  afterEach(() => {
    vi.restoreAllMocks();
    journal.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a round's events, emitted over several turns of the event loop, reach the journal in one append (one fsync)", async () => {
    // The window is a timer; faking only the timers keeps the event-loop turns real and the test free
    // of the machine's load (a loaded CI once took longer than the window over two setImmediate turns).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const writer = createJournalWriter(journal);
      // A round: the proposal, then (after the model and the tool answered) its review and execution.
      writer.onEvent(ev(0));
      writer.onEvent(ev(1));
      await Promise.resolve();
      writer.onEvent(ev(2));
      await tick();
      writer.onEvent(ev(3));
      await tick();
      writer.onEvent(ev(4));
      expect(appends).toEqual([]);
      vi.advanceTimersByTime(WINDOW_MS);
      // Committed at once; told (and handed to readers) once the thread pool's sync is done.
      expect(journal.head).toBe(5);
      await journal.settled();
      expect(appends.map((a) => a.events.map((e) => e.seq))).toEqual([[0, 1, 2, 3, 4]]);
      expect(journal.read(0, 10).events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("the window's commit does not wait for the disk here: nobody hears of it, nor reads it, before its sync; every other write still syncs as it commits", async () => {
    // The thread pool's sync, held until the test lets it finish.
    let finishSync: (() => void) | undefined;
    const realSync = fs.fdatasync;
    const sync = vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, done: (err: NodeJS.ErrnoException | null) => void) => {
      finishSync = () => realSync(fd, done);
    }) as typeof fs.fdatasync);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const writer = createJournalWriter(journal);
      writer.onEvent(ev(0));
      writer.onEvent(ev(1));
      vi.advanceTimersByTime(WINDOW_MS);
    } finally {
      vi.useRealTimers();
    }
    // Committed (another connection sees it), not yet synced: not told, and not handed to a page's backfill.
    expect(journal.head).toBe(2);
    expect(sync).toHaveBeenCalledTimes(1);
    expect(appends).toEqual([]);
    expect(journal.read(0, 10).events).toEqual([]);
    expect(journal.runEventsPage(RUN, -1, 10, 1_000_000).events).toEqual([]);
    const other = EventJournal.open(path.join(dir, 'history.sqlite'), { log: () => undefined });
    try {
      expect(other.count).toBe(2);
    } finally {
      other.close();
    }
    // The connection is back to syncing every commit (claims, checkpoints, removals, imports).
    expect(Number(journal.connection.pragma('synchronous', { simple: true }))).toBe(2);
    finishSync!();
    await journal.settled();
    expect(appends.map((a) => a.events.map((e) => e.seq))).toEqual([[0, 1]]);
    expect(journal.read(0, 10).events.map((e) => e.seq)).toEqual([0, 1]);
  });

  it('a synced commit after a windowed one tells both, in position order, as it returns', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const writer = createJournalWriter(journal);
      writer.onEvent(ev(0));
      vi.advanceTimersByTime(WINDOW_MS);
      writer.onEvent(ev(1));
      writer.flush();
      // The flush's sync wrote the whole log: the windowed commit before it is durable too.
      expect(appends.map((a) => a.events.map((e) => e.seq))).toEqual([[0], [1]]);
      expect(appends.map((a) => [a.after, a.position])).toEqual([[0, 1], [1, 2]]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('closing the journal syncs what the window committed and tells its subscribers first', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const writer = createJournalWriter(journal);
      writer.onEvent(ev(0));
      writer.onEvent(ev(1));
      vi.advanceTimersByTime(WINDOW_MS);
      journal.close();
      expect(appends.map((a) => a.events.map((e) => e.seq))).toEqual([[0, 1]]);
      const again = EventJournal.open(path.join(dir, 'history.sqlite'), { log: () => undefined });
      try {
        expect(again.read(0, 10).events.map((e) => e.seq)).toEqual([0, 1]);
      } finally {
        again.close();
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('flush writes what is pending at once (the trace is durable before a checkpoint is), and nothing twice', async () => {
    const writer = createJournalWriter(journal);
    writer.onEvent(ev(0));
    writer.onEvent(ev(1));
    writer.flush();
    expect(journal.head).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(appends.map((a) => a.events.length)).toEqual([2]);
  });

  it('events the engine made are not validated again on their way into the journal', async () => {
    const parse = vi.spyOn(RunEvent, 'parse');
    const writer = createJournalWriter(journal);
    for (let seq = 0; seq < 12; seq++) writer.onEvent(ev(seq));
    writer.flush();
    expect(journal.head).toBe(12);
    expect(parse).not.toHaveBeenCalled();
    // What comes from elsewhere still is.
    journal.append([ev(12)]);
    expect(parse).toHaveBeenCalledTimes(1);
  });

  it('a committed decision is durable before the call it commits is made: it and what came before it are written at once', () => {
    const writer = createJournalWriter(journal);
    writer.onEvent(ev(0));
    const committed = RunEvent.parse({
      type: 'decision.committed',
      id: eventId(RUN, 1),
      run_id: RUN,
      seq: 1,
      ts: new Date(0).toISOString(),
      round: 0,
      history_index: 0,
      decision: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: 'notes/todo.md' } },
    });
    writer.onEvent(committed);
    // No turn of the event loop: the tool call starts right after this.
    expect(journal.head).toBe(2);
    expect(appends.map((a) => a.events.map((e) => e.type))).toEqual([['round.started', 'decision.committed']]);
  });
});
