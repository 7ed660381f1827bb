import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RunEvent, eventId } from '@shared/contracts/events';
import { EventJournal, type JournalSlice } from './event-journal';
import { createJournalWriter } from './journal-writer';

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
    // of the machine's load (a loaded CI once took longer than 5 ms over two setImmediate turns).
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
      vi.advanceTimersByTime(5);
      expect(appends.map((a) => a.events.map((e) => e.seq))).toEqual([[0, 1, 2, 3, 4]]);
      expect(journal.head).toBe(5);
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
