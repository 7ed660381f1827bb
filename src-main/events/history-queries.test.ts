import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventId, RunEvent } from '@shared/contracts/events';
import { EventJournal } from './event-journal';
import { runsQuery, searchQuery, type RunsPage, type RunsQuery } from './history-queries';

const started = (runId: string, i: number, task: string): RunEvent =>
  RunEvent.parse({
    type: 'run.started',
    id: eventId(runId, 0),
    run_id: runId,
    seq: 0,
    // Two runs a second share a start time: the run id breaks the tie, as the lists do.
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(i / 2))).toISOString(),
    spec_id: 'notes',
    spec_name: 'Notes',
    task,
    supervision: { enabled: false },
    models: { student: 's', teacher: 't' },
  });

/** Every page of a search, following `next`. */
function allPages(run: (query: RunsQuery) => RunsPage, limit: number): string[][] {
  const pages: string[][] = [];
  let after: RunsQuery['after'];
  do {
    const page = run({ limit, ...(after ? { after } : {}) });
    pages.push(page.runs.map((listed) => listed.run.run_id));
    after = page.next;
  } while (after);
  return pages;
}

describe('searchQuery', () => {
  let dir: string;
  let journal: EventJournal;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-search-'));
    journal = EventJournal.open(path.join(dir, 'history.sqlite'), { log: () => undefined });
    // 60 runs: most hold "tidy", every fifth "archive" instead; a failed status on a few.
    const events: RunEvent[] = [];
    for (let i = 0; i < 60; i += 1) {
      const runId = `run-${String(i).padStart(4, '0')}-search`;
      events.push(started(runId, i, i % 5 === 0 ? 'archive the old notes' : 'tidy the meeting notes'));
      if (i % 7 === 0) events.push(RunEvent.parse({ type: 'run.finished', id: eventId(runId, 1), run_id: runId, seq: 1, ts: new Date(Date.UTC(2026, 0, 1, 1)).toISOString(), status: 'failed', rounds: 0, event_count: 2 }));
    }
    journal.append(events);
  });
  afterEach(() => {
    journal.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a word most runs hold pages through the same runs, in the same order, whichever way the database is walked', () => {
    const db = journal.connection;
    for (const text of ['tidy', 'notes', 'archive', 'meeting tidy', 'run-0012', 'nothing-at-all']) {
      for (const status of [undefined, ['failed' as const]]) {
        // broadMatch 5: "tidy" (48 runs) and "notes" (60) walk the runs newest first; Infinity: every match read and sorted.
        const walked = allPages((q) => searchQuery(db, text, { ...q, ...(status ? { status } : {}) }, 5), 7);
        const sorted = allPages((q) => searchQuery(db, text, { ...q, ...(status ? { status } : {}) }, Number.POSITIVE_INFINITY), 7);
        expect(walked, `${text} ${status ?? ''}`).toEqual(sorted);
      }
    }
    // Newest first, every match once.
    const tidy = allPages((q) => searchQuery(db, 'tidy', q, 5), 7).flat();
    expect(tidy).toHaveLength(48);
    expect(tidy[0]).toBe('run-0059-search');
    expect(new Set(tidy).size).toBe(48);
  });

  it('a date range and oldest-first order page through exactly the runs started in the range, each once, in order (as the Runs screen asks)', () => {
    const db = journal.connection;
    // Runs 10–29 started in [5 s, 15 s): two a second.
    const range = { from: new Date(Date.UTC(2026, 0, 1, 0, 0, 5)).toISOString(), to: new Date(Date.UTC(2026, 0, 1, 0, 0, 15)).toISOString() };
    const expected = Array.from({ length: 20 }, (_, k) => `run-${String(10 + k).padStart(4, '0')}-search`);
    for (const broadMatch of [5, Number.POSITIVE_INFINITY]) {
      const oldest = allPages((q) => searchQuery(db, 'notes', { ...q, ...range, oldest: true }, broadMatch), 7);
      expect(oldest.flat(), `oldest, broadMatch ${broadMatch}`).toEqual(expected);
      const newest = allPages((q) => searchQuery(db, 'notes', { ...q, ...range }, broadMatch), 7);
      expect(newest.flat(), `newest, broadMatch ${broadMatch}`).toEqual([...expected].reverse());
    }
    expect(allPages((q) => runsQuery(db, { ...q, ...range, oldest: true }), 3).flat()).toEqual(expected);
    // "archive" is every fifth run: 10, 15, 20 and 25 in the range.
    expect(allPages((q) => searchQuery(db, 'archive', { ...q, ...range, oldest: true }), 3).flat()).toEqual(['run-0010-search', 'run-0015-search', 'run-0020-search', 'run-0025-search']);
  });

  it('a broad word walks the runs by their start, so a page reads what it shows, not every match', () => {
    const db = journal.connection;
    const plans: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      if (sql.startsWith('SELECT run_id, started_at')) plans.push(prepare(`EXPLAIN QUERY PLAN ${sql}`).all('tidy', 'tidy\uffff', '"tidy"*', 8).map((row) => (row as { detail: string }).detail).join(' · '));
      return prepare(sql);
    }) as typeof db.prepare;
    try {
      searchQuery(db, 'tidy', { limit: 7 }, 5);
      searchQuery(db, 'tidy', { limit: 7 }, 1_000);
    } finally {
      db.prepare = prepare;
    }
    expect(plans[0]).toContain('USING INDEX runs_started');
    expect(plans[0]).not.toContain('TEMP B-TREE');
    expect(plans[1]).toContain('TEMP B-TREE FOR ORDER BY');
  });
});
