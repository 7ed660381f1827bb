import { describe, expect, it } from 'vitest';
import type { RunRow } from '@shared/history/run-summary';
import { RunFilter } from './run-filter';
import { hostSearch, mergeFound, HOST_SEARCH_PAGE, HOST_SEARCH_REQUESTS, type HostRunsQuery } from './host-search';

const row = (i: number, over: Partial<RunRow> = {}): RunRow => ({
  run_id: `run-${String(i).padStart(4, '0')}`,
  workflow_id: 'notes',
  spec_name: 'Notes assistant',
  status: 'completed',
  started_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
  rounds: 3,
  // Every third run unsupervised: a filter only the page applies.
  models: { student: 'replay', teacher: 'replay' },
  supervision_enabled: i % 3 !== 0,
  stored_events: 0,
  ...over,
});

/**
 * The host's `runs.list` for a text query as its database answers it (history-queries.ts, tested
 * there): every run whose task has the text, newest or oldest first, paged by `after`. A stand-in
 * for the host, so these tests are about what the page does with its pages.
 */
function hostOf(all: readonly RunRow[], hasText: (r: RunRow, text: string) => boolean) {
  const asked: HostRunsQuery[] = [];
  const ask = async (q: HostRunsQuery) => {
    asked.push(q);
    // As the host reads them: no text matches nothing, the default page is 50 rows, newest first unless asked.
    const limit = q.limit ?? 50;
    const key = (r: RunRow) => `${r.started_at}\u0000${r.run_id}`;
    const sorted = all.filter((r) => hasText(r, q.text ?? '') && (q.status === undefined || q.status.includes(r.status))).sort((a, b) => (key(a) < key(b) ? -1 : 1));
    const ordered = q.order === 'oldest' ? sorted : sorted.reverse();
    const start = q.after ? ordered.findIndex((r) => r.run_id === q.after?.run_id) + 1 : 0;
    const runs = ordered.slice(start, start + limit);
    const last = runs.at(-1);
    return { runs, ...(start + limit < ordered.length && last ? { next: { started_at: last.started_at, run_id: last.run_id } } : {}) };
  };
  return { ask, asked };
}

const tidy = (r: RunRow, text: string) => text === 'tidy' && Number(r.run_id.slice(4)) % 2 === 0;

describe('text search through the host\'s history', () => {
  it('a run this page lists without its trace is found by the host, with the filters only the page applies still applied', async () => {
    const all = Array.from({ length: 50 }, (_, i) => row(i));
    const host = hostOf(all, tidy);
    const found = await hostSearch(host.ask, RunFilter.parse({ text: ' tidy ', supervision: 'supervised' }), 10);
    // Even runs, supervised (not a multiple of 3), newest first: 49 is odd, 48 is a multiple of 3.
    expect(found.map((r) => r.run_id)).toEqual(['run-0046', 'run-0044', 'run-0040', 'run-0038', 'run-0034', 'run-0032', 'run-0028', 'run-0026', 'run-0022', 'run-0020']);
    expect(host.asked[0]).toMatchObject({ text: 'tidy', order: 'newest', limit: HOST_SEARCH_PAGE });
  });

  it('asks for the next page while the page\'s own filters leave it short, and stops after a bounded number of requests', async () => {
    const all = Array.from({ length: 3000 }, (_, i) => row(i, { supervision_enabled: i < 5 }));
    const host = hostOf(all, () => true);
    const found = await hostSearch(host.ask, RunFilter.parse({ text: 'tidy', supervision: 'supervised', sort: 'oldest' }), 10);
    // The five supervised runs are the oldest: the first page has them all.
    expect(found.map((r) => r.run_id)).toEqual(['run-0000', 'run-0001', 'run-0002', 'run-0003', 'run-0004']);
    expect(host.asked).toHaveLength(HOST_SEARCH_REQUESTS);
    expect(host.asked[1]?.after).toEqual({ started_at: all[HOST_SEARCH_PAGE - 1]!.started_at, run_id: all[HOST_SEARCH_PAGE - 1]!.run_id });
  });

  it('passes the status, workflow, days and where runs came from to the host, and asks nothing for an empty text or a status no run can have', async () => {
    const host = hostOf([row(1)], () => true);
    await hostSearch(host.ask, RunFilter.parse({ text: 'tidy', status: 'failed', workflowId: 'notes', origin: 'imported', fromDay: '2026-01-01', toDay: '2026-01-02' }), 5);
    expect(host.asked[0]).toMatchObject({ status: ['failed'], workflow: 'notes', imported: true });
    expect(host.asked[0]?.from).toBeDefined();
    expect(host.asked[0]?.to).toBeDefined();
    expect(await hostSearch(host.ask, RunFilter.parse({ text: '  ' }), 5)).toEqual([]);
    expect(await hostSearch(host.ask, RunFilter.parse({ text: 'tidy', waitingForYou: true, status: 'failed' }), 5)).toEqual([]);
    expect(host.asked).toHaveLength(1);
  });

  it('merges the page\'s matches and the host\'s: each run once, as the page holds it, in the list\'s order', () => {
    const f = RunFilter.parse({ text: 'tidy', status: 'running' });
    const local = [row(5, { status: 'running', stored_events: 9 })];
    // The host found 5 (the page's row wins), 7 (held here, and ended meanwhile: no longer running) and 9 (not held here).
    const fromHost = [row(9, { status: 'running' }), row(7, { status: 'running' }), row(5, { status: 'running' })];
    const held = [undefined, row(7, { status: 'completed', stored_events: 20 }), row(5, { status: 'running', stored_events: 9 })];
    const merged = mergeFound(local, fromHost, held, f, 10);
    expect(merged.map((r) => [r.run_id, r.stored_events])).toEqual([
      ['run-0009', 0],
      ['run-0005', 9],
    ]);
    expect(mergeFound(local, fromHost, held, { ...f, sort: 'oldest' }, 1).map((r) => r.run_id)).toEqual(['run-0005']);
  });
});
