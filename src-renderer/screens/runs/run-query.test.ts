import 'fake-indexeddb/auto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_STATUSES } from '@shared/contracts/events';
import { StewardDb } from '../../db/db';
import { RunFilter, providerOfLabel } from './run-filter';
import { SEARCH_TUNING, queryRuns, scanRuns } from './run-query';
import { dayRange } from './run-match';
import { syntheticRuns } from './synthetic-runs';
import { rowsReadDb } from '../../testing/rows-read';

let db: StewardDb;
// Run ids as the host makes them (UUIDs), two sharing their first 8 characters, on top of the synthetic ones.
const UUIDS = ['3f2a9c1e-7b4d-4e2a-9c1f-0a1b2c3d4e5f', '3f2a9c1e-0000-4e2a-9c1f-0a1b2c3d4e5f', 'b7c8d9e0-1111-4222-8333-944455566677'];
// Every ninth run came from an imported trace, as the host's rows say (RunRow.imported).
const runs = [...syntheticRuns(1500, 7), ...syntheticRuns(3, 11).map((row, i) => ({ ...row, run_id: UUIDS[i]! }))].map((row, i) => (i % 9 === 0 ? { ...row, imported: true as const } : row));

beforeAll(async () => {
  db = new StewardDb(`steward-run-query-${Math.random().toString(36).slice(2)}`);
  await db.open();
  await db.runs.bulkPut(runs);
});
afterAll(async () => {
  await db.delete();
});

const ids = (rows: { run_id: string }[]) => rows.map((r) => r.run_id);

describe('queryRuns', () => {
  it('a status filter lists only runs of that status, newest first, one page at most', async () => {
    const page = await queryRuns(db, RunFilter.parse({ status: 'failed' }), 50);
    expect(page).toHaveLength(50);
    expect(page.every((r) => r.status === 'failed')).toBe(true);
    const starts = page.map((r) => r.started_at);
    expect(starts).toEqual([...starts].sort().reverse());
  });

  it('"waiting for you" lists only runs paused for a person, and none when another status is picked too', async () => {
    const waiting = await queryRuns(db, RunFilter.parse({ waitingForYou: true }), 1000);
    expect(waiting.length).toBe(runs.filter((r) => r.status === 'waiting').length);
    expect(waiting.every((r) => r.status === 'waiting')).toBe(true);
    expect(await queryRuns(db, RunFilter.parse({ waitingForYou: true, status: 'completed' }), 10)).toEqual([]);
  });

  it('a date range keeps both end days whole, oldest first when asked', async () => {
    const page = await queryRuns(db, RunFilter.parse({ fromDay: '2026-03-01', toDay: '2026-03-02', sort: 'oldest' }), 1000);
    const { from, to } = dayRange('2026-03-01', '2026-03-02');
    const expected = runs.filter((r) => r.started_at >= from! && r.started_at < to!);
    expect(expected.length).toBeGreaterThan(0);
    expect(ids(page).sort()).toEqual(ids(expected).sort());
    const starts = page.map((r) => r.started_at);
    expect(starts).toEqual([...starts].sort());
  });

  it('text search finds a run by any word of its task, output or message, whatever the case', async () => {
    const byTask = await queryRuns(db, RunFilter.parse({ text: 'QUARTERLY report' }), 1000);
    expect(byTask.length).toBeGreaterThan(0);
    expect(byTask.every((r) => `${r.task} ${r.output}`.toLowerCase().includes('quarterly report'))).toBe(true);
    const byMessage = await queryRuns(db, RunFilter.parse({ text: 'timed out' }), 1000);
    expect(ids(byMessage).sort()).toEqual(ids(runs.filter((r) => r.message?.includes('timed out'))).sort());
    const oneRun = await queryRuns(db, RunFilter.parse({ text: '#1234' }), 10);
    expect(ids(oneRun)).toContain('run-001234');
  });

  it('a run is found by its id, whole or its first 8 characters, whatever the case', async () => {
    expect(ids(await queryRuns(db, RunFilter.parse({ text: UUIDS[2]! }), 10))).toEqual([UUIDS[2]]);
    expect(ids(await queryRuns(db, RunFilter.parse({ text: 'B7C8D9E0' }), 10))).toEqual([UUIDS[2]]);
    expect(ids(await queryRuns(db, RunFilter.parse({ text: ' 3f2a9c1e ' }), 10)).sort()).toEqual([UUIDS[1], UUIDS[0]].sort());
    expect(await queryRuns(db, RunFilter.parse({ text: '3f2a9c1e-9' }), 10)).toEqual([]);
  });

  it('a search for a word one run has reads about that run’s row, not every run', async () => {
    let rowsRead = 0;
    const counted = rowsReadDb(db.name, 'runs', () => rowsRead++);
    await counted.open();
    try {
      const target = runs[777]!;
      const page = await queryRuns(counted, RunFilter.parse({ text: `${target.task} ${target.output ?? ''}` }), 100);
      expect(ids(page)).toContain(target.run_id);
      expect(rowsRead).toBeLessThan(50);
      rowsRead = 0;
      expect(await queryRuns(counted, RunFilter.parse({ text: 'no-such-word' }), 100)).toEqual([]);
      expect(rowsRead).toBe(0);
    } finally {
      counted.close();
    }
  });

  it('a provider filter keeps the runs whose student or teacher used that provider', async () => {
    const uses = (r: (typeof runs)[number], p: string) => [r.models.student, r.models.teacher].some((m) => (p === 'replay' ? m === 'replay' : p === 'ollama' ? m.startsWith('ollama:') : m !== 'replay' && !m.startsWith('ollama:')));
    for (const provider of ['replay', 'ollama', 'remote'] as const) {
      const page = await queryRuns(db, RunFilter.parse({ provider }), 2000);
      expect(ids(page).sort()).toEqual(ids(runs.filter((r) => uses(r, provider))).sort());
    }
    // A workflow run whose nodes use different models, or none yet, names no provider.
    expect(['per node', '—', '?'].map(providerOfLabel)).toEqual([undefined, undefined, undefined]);
    const remote = await queryRuns(db, RunFilter.parse({ provider: 'remote' }), 2000);
    expect(remote.every((r) => r.models.student === 'api.openai.com:gpt-5-mini')).toBe(true);
  });

  it('a "came from" filter keeps the runs imported from a trace, or those that ran here', async () => {
    const imported = await queryRuns(db, RunFilter.parse({ origin: 'imported' }), 2000);
    expect(ids(imported).sort()).toEqual(ids(runs.filter((r) => r.imported === true)).sort());
    expect(imported.length).toBeGreaterThan(100);
    const here = await queryRuns(db, RunFilter.parse({ origin: 'here', status: 'failed' }), 2000);
    expect(ids(here).sort()).toEqual(ids(runs.filter((r) => r.imported !== true && r.status === 'failed')).sort());
  });

  it('runs started at the same instant are each listed once, however many chunks the page takes', async () => {
    const same = syntheticRuns(250, 3).map((r, i) => ({ ...r, run_id: `same-${String(i).padStart(3, '0')}`, workflow_id: 'same-instant', started_at: '2026-04-01T12:00:00.000Z' }));
    await db.runs.bulkPut(same);
    try {
      for (const sort of ['newest', 'oldest'] as const) {
        const page = await queryRuns(db, RunFilter.parse({ workflowId: 'same-instant', sort }), 300);
        expect(new Set(ids(page)).size).toBe(250);
        expect(ids(page)).toEqual(sort === 'oldest' ? ids(same) : ids(same).reverse());
      }
    } finally {
      await db.runs.bulkDelete(ids(same));
    }
  });

  it('every filter’s first page equals the first page of a full scan of the table', async () => {
    const all = await db.runs.toArray();
    // Whole words, prefixes a person stops typing at, one run's number, words no run has, and a few at once.
    const vocabulary = [...new Set(all.flatMap((r) => r.words ?? []))];
    const typed = fc.tuple(fc.constantFrom(...vocabulary), fc.integer({ min: 1, max: 8 }), fc.boolean()).map(([w, n, upper]) => (upper ? w.slice(0, n).toUpperCase() : w.slice(0, n)));
    const searchText = fc.oneof(
      fc.constantFrom('', 'invoices', 'WROTE', 'qwen3', 'nothing-like-this', '#1234', 'timed out', 'zzz', 'quarterly, report!', 'photos wrote receipts', 'timed invoices', '3f2a9c1e', UUIDS[2]!, 'b7c8d9e0-11'),
      typed,
      fc.array(typed, { minLength: 2, maxLength: 3 }).map((ws) => ws.join(' ')),
    );
    const filter = fc.record(
      {
        status: fc.constantFrom(...RUN_STATUSES),
        workflowId: fc.constantFrom('notes-cleanup', 'folder-triage', 'no-such-workflow'),
        supervision: fc.constantFrom('supervised' as const, 'unsupervised' as const),
        provider: fc.constantFrom('replay' as const, 'ollama' as const, 'remote' as const),
        origin: fc.constantFrom('imported' as const, 'here' as const),
        waitingForYou: fc.boolean(),
        fromDay: fc.constantFrom('2026-02-01', '2026-06-15'),
        toDay: fc.constantFrom('2026-05-31', '2026-12-31'),
        text: searchText,
        sort: fc.constantFrom('newest' as const, 'oldest' as const),
      },
      { requiredKeys: ['sort'] },
    );
    // Small thresholds send searches down every path (rare words, the budgeted scan, the whole lists intersected).
    const tuning = fc.option(fc.record({ wordEntries: fc.oneof(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 61, max: 1200 })), directRows: fc.integer({ min: 0, max: 400 }), scanBudget: fc.integer({ min: 1, max: 600 }) }));
    await fc.assert(
      fc.asyncProperty(filter, fc.integer({ min: 1, max: 120 }), tuning, async (raw, limit, t) => {
        const f = RunFilter.parse(raw);
        expect(ids(await queryRuns(db, f, limit, t ?? SEARCH_TUNING))).toEqual(ids(scanRuns(all, f).slice(0, limit)));
      }),
      { numRuns: 250 },
    );
  });
});
