/**
 * bench/trace-tree — what a live batch costs the run view's trace tree (issue 9), as ratios measured in one run.
 *
 * Before, every live batch rebuilt the tree from all of a run's events; now the batch's events are placed in the
 * tree kept so far (screens/trace/trace-tree.ts: TraceTreeBuilder). Per size (n rounds and 2n): the median time of a
 * rebuild over the whole run against that of appending the last round's events to a tree of the others, and the
 * ratio of each at 2n to n (a rebuild grows with the run, ≈ 2×; an append should not, ≈ 1×). The counting test
 * (trace-tree-incremental.test.ts) holds the same claim without a clock.
 * Run: npx tsx --tsconfig tsconfig.test.json bench/trace-tree.ts (BENCH_SAMPLES, BENCH_ROUNDS to change them)
 */
import { performance } from 'node:perf_hooks';
import type { RunEvent } from '../src-shared/contracts/events';
import { median } from './timed-median';
import { TraceTreeBuilder } from '../src-renderer/screens/trace/trace-tree';
import { blockedRound, eventLog, finishRun, readExecutedRound, startRun, writeReplacedRound } from '../src-renderer/testing/event-fixtures';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 9);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1_500);

function agentRun(rounds: number): RunEvent[] {
  const log = eventLog('bench-trace-tree');
  startRun(log);
  const kinds = [readExecutedRound, writeReplacedRound, blockedRound];
  for (let i = 0; i < rounds; i++) kinds[i % kinds.length]!(log, i);
  finishRun(log, 'completed', rounds);
  return log.events.sort((a, b) => a.seq - b.seq);
}

function measure(rounds: number): { events: number; batch: number; rebuildMs: number; appendMs: number } {
  const events = agentRun(rounds);
  const lastRound = events.findIndex((e) => 'round' in e && e.round === rounds - 1);
  const before = events.slice(0, lastRound);
  const batch = events.slice(lastRound);
  const rebuild: number[] = [];
  const append: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    let t = performance.now();
    TraceTreeBuilder.of(events).tree();
    rebuild.push(performance.now() - t);
    const builder = TraceTreeBuilder.of(before); // outside the timing: the tree the page already holds
    t = performance.now();
    if (!builder.append(batch)) throw new Error('the last round did not follow the others');
    builder.tree();
    append.push(performance.now() - t);
  }
  return { events: events.length, batch: batch.length, rebuildMs: median(rebuild), appendMs: median(append) };
}

const n = measure(ROUNDS);
const n2 = measure(ROUNDS * 2);
const ms = (x: number) => `${x.toFixed(3)} ms`;
console.log(`trace tree, one live batch (the last round's ${n.batch} events), median of ${SAMPLES}:`);
for (const [label, m] of [[`n = ${ROUNDS} rounds`, n], [`2n = ${ROUNDS * 2} rounds`, n2]] as const) {
  console.log(`  ${label} (${m.events} events): rebuild ${ms(m.rebuildMs)}, append ${ms(m.appendMs)} — append is ${(m.rebuildMs / m.appendMs).toFixed(0)}× cheaper`);
}
console.log(`  2n / n: rebuild ${(n2.rebuildMs / n.rebuildMs).toFixed(2)}× (grows with the run), append ${(n2.appendMs / n.appendMs).toFixed(2)}× (should stay ≈ 1×)`);
