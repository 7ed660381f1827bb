import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventId, type RunEvent } from '@shared/contracts/events';
import Database from 'better-sqlite3';
import { EventJournal } from './event-journal';
import { JournalFeed, type FeedFrame } from './journal-feed';

// Issue 9 leftover: deletion tombstones are compacted, and a deleted run still never comes back. A real database.
const ts = new Date(0).toISOString();
const started = (run: string): RunEvent => ({ type: 'round.started', id: eventId(run, 0), run_id: run, seq: 0, ts, round: 0, proposer: 'student' });
const finished = (run: string): RunEvent => ({ type: 'run.finished', id: eventId(run, 1), run_id: run, seq: 1, ts, status: 'completed', rounds: 1, event_count: 2 });
const RUNS = ['run-tomb-0001', 'run-tomb-0002', 'run-tomb-0003', 'run-tomb-0004', 'run-tomb-0005'];

/** What the history database holds of tombstones, read by another connection as a second process would. */
function fileLines(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    const tombstoned = db.prepare<[], { run_id: string }>('SELECT run_id FROM tombstones ORDER BY n').all().map((row) => row.run_id);
    const compacted = Number(db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'compacted'").get()?.value ?? 0);
    return { tombstoned, compacted };
  } finally {
    db.close();
  }
}

describe('tombstone compaction', () => {
  let dir: string;
  let file: string;
  const queue: Array<() => void> = [];
  const drain = () => {
    while (queue.length) queue.shift()?.();
  };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-tombstones-'));
    file = path.join(dir, 'history.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Five finished runs; a page stored them all (its cursor is the head then). */
  function journalOfFiveRuns(maxTombstones: number) {
    const j = EventJournal.open(file, { log: () => undefined, maxTombstones });
    for (const run of RUNS) j.append([started(run), finished(run)]);
    return { j, pageCursor: j.head };
  }

  it('past the bound the oldest tombstones are dropped and a compaction mark kept: the file stops growing, also after a reopen', async () => {
    const { j } = journalOfFiveRuns(2);
    const marks: number[] = [];
    for (const [i, run] of RUNS.slice(0, 4).entries()) {
      await j.remove([run]);
      marks.push(j.compactedThrough);
      j.append([started(`run-tomb-live-${i}`)]); // the head moves on between removals
    }
    expect(j.tombstoneCount).toBe(2);
    expect(j.deletedSince(0)).toEqual(['run-tomb-0003', 'run-tomb-0004']);
    // The first two removals fit; the third dropped run 1's tombstone, the fourth run 2's.
    expect(marks[0]).toBe(0);
    expect(marks[1]).toBe(0);
    expect(marks[3]).toBeGreaterThan(marks[2]!);
    // On disk: at most the bound plus the last removal's own tombstone, and the mark.
    const onDisk = fileLines(file);
    expect(onDisk.tombstoned.length).toBeLessThanOrEqual(3);
    expect(onDisk.tombstoned).not.toContain('run-tomb-0001');
    expect(onDisk.compacted).toBe(j.compactedThrough);
    const through = j.compactedThrough;
    j.close();
    // A second host on the same data folder (a restart, the CLI) reads the same mark and tombstones.
    const again = EventJournal.open(file, { log: () => undefined, maxTombstones: 2 });
    expect(again.compactedThrough).toBe(through);
    expect(again.deletedSince(0)).toEqual(['run-tomb-0003', 'run-tomb-0004']);
    expect(again.hasRun('run-tomb-0001')).toBe(false);
    expect(again.hasRun('run-tomb-0005')).toBe(true);
    again.close();
  });

  it('a journal holding more tombstones than its bound (written before compaction) is compacted when opened', async () => {
    const { j } = journalOfFiveRuns(100);
    for (const run of RUNS.slice(0, 4)) await j.remove([run]);
    j.close();
    expect(fileLines(file).tombstoned).toHaveLength(4);
    const again = EventJournal.open(file, { log: () => undefined, maxTombstones: 1 });
    expect(again.tombstoneCount).toBe(1);
    expect(again.compactedThrough).toBeGreaterThan(0);
    expect(fileLines(file).tombstoned).toEqual(['run-tomb-0004']);
    again.close();
  });

  it('a page offline through a compacted deletion is told to reconcile before any event or tombstone; once it has, the feed goes on', async () => {
    const { j, pageCursor } = journalOfFiveRuns(1);
    await j.remove(['run-tomb-0001']);
    await j.remove(['run-tomb-0002']); // run 1's tombstone is compacted away
    j.append([started('run-tomb-0006')]);
    const feed = new JournalFeed(j, { defer: (next) => queue.push(next) });
    const frames: FeedFrame[] = [];
    const told: string[][] = [];
    const first = feed.attach('offline-page', (f) => frames.push(f), { journal: j.id, after: pageCursor }, (ids) => told.push(ids));
    drain();
    expect(first.reconcile).toBe(j.compactedThrough);
    expect(frames).toEqual([]);
    expect(told).toEqual([]);
    // It checked its runs (runs.known) and subscribes again saying so: the kept tombstone, then the new events.
    const second = feed.attach('offline-page', (f) => frames.push(f), { journal: j.id, after: pageCursor, reconciled: first.reconcile }, (ids) => told.push(ids));
    drain();
    expect(second.reconcile).toBeUndefined();
    expect(told).toEqual([['run-tomb-0002']]);
    expect(frames.flatMap((f) => f.events.map((e) => e.run_id))).toEqual(['run-tomb-0006']);
    feed.close();
    j.close();
  });

  it('after a restart the old cursor is still told to reconcile; a cursor past the mark and a page starting afresh are not', async () => {
    const { j, pageCursor } = journalOfFiveRuns(1);
    await j.remove(['run-tomb-0001']);
    await j.remove(['run-tomb-0002']);
    j.append([started('run-tomb-0006')]);
    const afterMark = j.head; // a page that stored this was told of both removals
    j.close();
    const restarted = EventJournal.open(file, { log: () => undefined, maxTombstones: 1 });
    const feed = new JournalFeed(restarted, { defer: (next) => queue.push(next) });
    expect(feed.attach('old-page', () => undefined, { journal: restarted.id, after: pageCursor }).reconcile).toBeGreaterThan(0);
    expect(feed.attach('new-page', () => undefined, {}).reconcile).toBeUndefined();
    expect(feed.attach('current-page', () => undefined, { journal: restarted.id, after: afterMark }).reconcile).toBeUndefined();
    drain();
    feed.close();
    restarted.close();
  });
});
