import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventId, type RunEvent } from '@shared/contracts/events';
import { EventJournal } from './event-journal';
import { JournalFeed, type FeedFrame } from './journal-feed';

const RUN = 'run-feed-test';
const ev = (seq: number): RunEvent => ({ type: 'round.started', id: eventId(RUN, seq), run_id: RUN, seq, ts: new Date(0).toISOString(), round: seq, proposer: 'student' });
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => ev(from + i));

describe('JournalFeed', () => {
  let dir: string;
  let journal: EventJournal;
  const queue: Array<() => void> = [];
  const drain = () => {
    while (queue.length) queue.shift()?.();
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-feed-'));
    journal = EventJournal.open(path.join(dir, 'history.sqlite'), { log: () => undefined });
  });
  afterEach(() => {
    journal.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('events appended while a session backfills reach it once, in journal order, after its backfill', () => {
    journal.append(range(0, 250));
    const feed = new JournalFeed(journal, { batch: 100, defer: (next) => queue.push(next) });
    const frames: FeedFrame[] = [];
    feed.attach('page', (f) => frames.push(f), {});
    queue.shift()?.(); // one backfill frame out
    journal.append(range(250, 260)); // a live run meanwhile
    drain();
    journal.append(range(260, 270)); // now live
    drain();
    expect(frames.flatMap((f) => f.events)).toEqual(range(0, 270));
    expect(frames.map((f) => [f.cursor.after, f.cursor.position])).toEqual([[0, 100], [100, 200], [200, 260], [260, 270]]);
    feed.close();
  });

  it('subscribing again restarts the session from the new cursor; a detached session is sent nothing more', () => {
    journal.append(range(0, 30));
    const feed = new JournalFeed(journal, { batch: 10, defer: (next) => queue.push(next) });
    const first: FeedFrame[] = [];
    feed.attach('page', (f) => first.push(f), {});
    queue.shift()?.();
    const second: FeedFrame[] = [];
    feed.attach('page', (f) => second.push(f), { journal: journal.id, after: 25 });
    drain();
    expect(first.flatMap((f) => f.events)).toEqual(range(0, 10));
    expect(second.flatMap((f) => f.events)).toEqual(range(25, 30));
    feed.detach('page');
    journal.append([ev(30)]);
    drain();
    expect(second.flatMap((f) => f.events)).toEqual(range(25, 30));
    feed.close();
  });

  it('a cursor past the end of this journal starts from the beginning (the journal was started afresh)', () => {
    journal.append(range(0, 3));
    const feed = new JournalFeed(journal, { defer: (next) => queue.push(next) });
    const frames: FeedFrame[] = [];
    expect(feed.attach('page', (f) => frames.push(f), { journal: journal.id, after: 99 })).toEqual({ journal: journal.id, after: 0, head: 3 });
    drain();
    expect(frames.flatMap((f) => f.events)).toEqual(range(0, 3));
    feed.close();
  });

  it('a session with a window has at most that many frames in flight: the next ones go out as it says what it stored', () => {
    journal.append(range(0, 50));
    const feed = new JournalFeed(journal, { batch: 10, defer: (next) => queue.push(next) });
    const frames: FeedFrame[] = [];
    feed.attach('page', (f) => frames.push(f), { window: 2 });
    drain();
    expect(frames.map((f) => f.cursor.position)).toEqual([10, 20]);
    // Stored the first frame: one more may go out.
    expect(feed.acknowledge('page', { journal: journal.id, position: 10 })).toBe(true);
    drain();
    expect(frames.map((f) => f.cursor.position)).toEqual([10, 20, 30]);
    // Stored everything sent so far (two frames in one go): two more.
    feed.acknowledge('page', { journal: journal.id, position: 30 });
    drain();
    expect(frames.map((f) => f.cursor.position)).toEqual([10, 20, 30, 40, 50]);
    // Live events wait for credit too, and none is lost or sent twice.
    journal.append(range(50, 55));
    journal.append(range(55, 60));
    drain();
    expect(frames.map((f) => f.cursor.position)).toEqual([10, 20, 30, 40, 50]);
    feed.acknowledge('page', { journal: journal.id, position: 50 });
    drain();
    expect(frames.flatMap((f) => f.events)).toEqual(range(0, 60));
    // A position from another journal says nothing about this one.
    expect(feed.acknowledge('page', { journal: 'another journal', position: 60 })).toBe(false);
    feed.close();
  });

  it('a session without a window (an older page) is sent everything without waiting', () => {
    journal.append(range(0, 50));
    const feed = new JournalFeed(journal, { batch: 10, defer: (next) => queue.push(next) });
    const frames: FeedFrame[] = [];
    feed.attach('page', (f) => frames.push(f), {});
    drain();
    expect(frames.map((f) => f.cursor.position)).toEqual([10, 20, 30, 40, 50]);
    feed.close();
  });
});
