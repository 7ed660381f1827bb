import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { reviewedRun, runEvents } from '../../test-support/promotion-runs';
import { foldInBackground, type BackgroundFold } from './background-fold';
import { EventJournal } from './event-journal';
import { historyPath } from './history-db';

const dirs: string[] = [];
const opened: EventJournal[] = [];
const folds: BackgroundFold[] = [];
afterEach(() => {
  for (const fold of folds.splice(0)) fold.stop();
  for (const journal of opened.splice(0)) journal.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A history of `runs` reviewed runs that nothing has folded yet (as an upgraded data folder's, or a long import's). */
function unfoldedHistory(runs: number, options: { busyTimeoutMs?: number } = {}): { journal: EventJournal; file: string; head: number } {
  const dir = mkdtempSync(join(tmpdir(), 'steward-background-fold-'));
  dirs.push(dir);
  const file = historyPath(dir);
  const journal = EventJournal.open(file, { log: () => undefined, ...options });
  opened.push(journal);
  for (let i = 0; i < runs; i += 1) journal.append(runEvents(reviewedRun(i, 6), i));
  expect(journal.fold.foldedThrough).toBe(0);
  return { journal, file, head: journal.head };
}

/** The journal's fold, counting the chunks asked of it (tried, whether or not they could be written). */
function counted(journal: EventJournal) {
  const chunks = {
    folded: 0,
    foldChunk: (limit?: number) => {
      chunks.folded += 1;
      return journal.fold.foldChunk(limit);
    },
    settleChunk: (limit: number) => journal.fold.settleChunk(limit),
  };
  return chunks;
}

describe('the host folds its history in the background', () => {
  it('a history never folded is folded while no run is under way, in chunks, without anyone asking', async () => {
    const { journal, head } = unfoldedHistory(12);
    const chunks = counted(journal);
    const fold = foldInBackground(chunks, { busy: () => false, log: () => undefined, delayMs: 0, gapMs: 0, chunk: 25 });
    folds.push(fold);
    fold.nudge();
    await vi.waitFor(() => expect(journal.fold.foldedThrough).toBe(head), { timeout: 5_000 });
    // Small chunks, each its own transaction: a request waits for one at most.
    expect(chunks.folded).toBeGreaterThan(3);
    // An ask afterwards finds nothing left to fold, and the figures an ask on the same history folds for itself.
    const asked = unfoldedHistory(12).journal;
    for (const node of ['', 'reader']) {
      const figures = await journal.promotion.figures('wf-a', node, 20, 5);
      expect(figures).toEqual(await asked.promotion.figures('wf-a', node, 20, 5));
    }
    expect((await journal.promotion.figures('wf-a', 'reader', 20, 5)).outcomes + (await journal.promotion.figures('wf-a', '', 20, 5)).outcomes).toBe(12 * 6);
    expect(journal.fold.foldedThrough).toBe(head);
    expect((await journal.learning.page({ limit: 500 })).examples).toEqual((await asked.learning.page({ limit: 500 })).examples);
  });

  it('runs under way come first: nothing is folded while the host is busy, and it catches up once quiet', async () => {
    const { journal, head } = unfoldedHistory(4);
    let busy = true;
    const asked = vi.fn(() => busy);
    const fold = foldInBackground(journal.fold, { busy: asked, log: () => undefined, delayMs: 1, gapMs: 0, chunk: 10 });
    folds.push(fold);
    fold.nudge();
    await vi.waitFor(() => expect(asked.mock.calls.length).toBeGreaterThan(3));
    expect(journal.fold.foldedThrough).toBe(0);
    busy = false;
    await vi.waitFor(() => expect(journal.fold.foldedThrough).toBe(head));
  });

  it('new events after it caught up are folded at the next nudge; after stop, nothing more', async () => {
    const { journal, head } = unfoldedHistory(2);
    const fold = foldInBackground(journal.fold, { busy: () => false, log: () => undefined, delayMs: 0, gapMs: 0 });
    folds.push(fold);
    fold.nudge();
    await vi.waitFor(() => expect(journal.fold.foldedThrough).toBe(head));
    journal.append(runEvents(reviewedRun(2, 6), 2));
    fold.nudge();
    await vi.waitFor(() => expect(journal.fold.foldedThrough).toBe(journal.head));
    fold.stop();
    journal.append(runEvents(reviewedRun(3, 6), 3));
    fold.nudge();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(journal.fold.foldedThrough).toBeLessThan(journal.head);
  });

  it('a fold that cannot write (another process holds the database) is said once, retried, and never rejects', async () => {
    const { journal, file, head } = unfoldedHistory(3, { busyTimeoutMs: 5 });
    // Another connection (a steward command, say) holding the write lock: the chunk's IMMEDIATE transaction cannot begin.
    const other = new Database(file);
    other.prepare('BEGIN IMMEDIATE').run();
    const lines: string[] = [];
    const chunks = counted(journal);
    const fold = foldInBackground(chunks, { busy: () => false, log: (line) => lines.push(line), delayMs: 2, gapMs: 0 });
    folds.push(fold);
    fold.nudge();
    try {
      await vi.waitFor(() => expect(chunks.folded).toBeGreaterThanOrEqual(3));
      expect(journal.fold.foldedThrough).toBe(0);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/could not be brought up to date in the background \(.*locked.*\); they are folded when asked/);
    } finally {
      other.prepare('ROLLBACK').run();
      other.close();
    }
    await vi.waitFor(() => expect(journal.fold.foldedThrough).toBe(head), { timeout: 5_000 });
    expect(lines).toHaveLength(1);
  });
});
