/**
 * bench/runs-query — the runs list's first page under each filter and search.
 *
 * A database of RUNS runs (bench-made rows, src-renderer/screens/runs/synthetic-runs.ts) and EVENTS events
 * (10 per run) in fake-indexeddb, the IndexedDB the renderer tests use. Per filter, the time to the first page
 * (100 rows):
 *   indexed    queryRuns: the most selective index ([status+started_at], [workflow_id+started_at] or
 *              started_at) drives a cursor that stops at the page's last match; a text query first reads the
 *              `*words` index (v4) and, when a query word is rare, only the runs having it
 *   full scan  what the list did before: every run read (toArray), filtered and sorted in memory (the baseline)
 * Median of SAMPLES runs each; ratios measured in the same run.
 * Run: npm run bench:runs (BENCH_RUNS, BENCH_EVENTS, BENCH_SAMPLES to change the sizes)
 */
import 'fake-indexeddb/auto';
import { timedMedian } from './timed-median';
import { performance } from 'node:perf_hooks';
import { StewardDb } from '../src-renderer/db/db';
import { RunFilter } from '../src-renderer/screens/runs/run-filter';
import { RUN_PAGE, queryRuns, scanRuns } from '../src-renderer/screens/runs/run-query';
import { syntheticRuns } from '../src-renderer/screens/runs/synthetic-runs';
import type { RunEvent } from '@shared/contracts/events';

const RUNS = Number(process.env.BENCH_RUNS ?? 10_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 11);

const timed = (fn: () => Promise<unknown>) => timedMedian(SAMPLES, fn);

const db = new StewardDb(`bench-runs-${Date.now()}`);
await db.open();
const runs = syntheticRuns(RUNS, 42);
const t = performance.now();
await db.runs.bulkPut(runs);
const perRun = Math.max(1, Math.round(EVENTS / RUNS));
for (let from = 0; from < EVENTS; from += 10_000) {
  // Events only have to be there (the runs list never reads them): the smallest rows that index like real ones.
  const chunk = Array.from({ length: Math.min(10_000, EVENTS - from) }, (_, k) => {
    const i = from + k;
    const run = runs[Math.floor(i / perRun) % runs.length]!;
    return { id: `${run.run_id}:${i % perRun}`, run_id: run.run_id, seq: i % perRun, type: 'tool.executed', ts: run.started_at } as unknown as RunEvent;
  });
  await db.events.bulkPut(chunk);
}
console.log(`seeded ${RUNS} runs and ${await db.events.count()} events in ${((performance.now() - t) / 1000).toFixed(1)} s (fake-indexeddb)\n`);

const rare = runs[Math.floor(RUNS / 2)]!;
const cases: [string, RunFilter][] = [
  ['no filter, newest first', RunFilter.parse({})],
  ['no filter, oldest first', RunFilter.parse({ sort: 'oldest' })],
  ['status = failed', RunFilter.parse({ status: 'failed' })],
  ['waiting for you', RunFilter.parse({ waitingForYou: true })],
  ['workflow = folder-triage', RunFilter.parse({ workflowId: 'folder-triage' })],
  ['unsupervised (no index)', RunFilter.parse({ supervision: 'unsupervised' })],
  ['started in March', RunFilter.parse({ fromDay: '2026-03-01', toDay: '2026-03-31' })],
  ['search "invoices" (common)', RunFilter.parse({ text: 'invoices' })],
  ['search "inv" (prefix of a common word)', RunFilter.parse({ text: 'inv' })],
  ['search "t" (first letter typed)', RunFilter.parse({ text: 't' })],
  ['failed + search "timed out"', RunFilter.parse({ status: 'failed', text: 'timed out' })],
  [`search "${rare.task}" (one run)`, RunFilter.parse({ text: rare.task })],
  [`search "${rare.run_id.slice(-4)}" (a number, few runs)`, RunFilter.parse({ text: rare.run_id.slice(-4) })],
  ['search "4" (a prefix: 1,111 run numbers, the 4b model)', RunFilter.parse({ text: '4' })],
  ['search with no match', RunFilter.parse({ text: 'no-such-word' })],
  ['search "photos wrote receipts" (three common words)', RunFilter.parse({ text: 'photos wrote receipts' })],
  ['failed + started in March + search "meeting"', RunFilter.parse({ status: 'failed', fromDay: '2026-03-01', toDay: '2026-03-31', text: 'meeting' })],
];

console.log('| first page (100 rows) | indexed ms | full scan ms | vs full scan | rows |');
console.log('|---|---:|---:|---:|---:|');
for (const [name, f] of cases) {
  const rows = (await queryRuns(db, f, RUN_PAGE)).length;
  const indexed = await timed(() => queryRuns(db, f, RUN_PAGE));
  const scan = await timed(async () => scanRuns(await db.runs.toArray(), f).slice(0, RUN_PAGE));
  console.log(`| ${name} | ${indexed.toFixed(1)} | ${scan.toFixed(1)} | ${(indexed / scan).toFixed(2)}× | ${rows} |`);
}
db.close();
