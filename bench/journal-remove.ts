/**
 * bench/journal-remove — how long deleting a run (a person's, or retention's "keep N runs") holds
 * the host's event loop on a large journal, against a plain append measured in the same run.
 *
 * A journal of ~46 MB (EVENTS events over RUNS runs, like the one measured in issue 9) is built in a
 * temp folder. Then:
 *   (0) noise floor: the longest stall the event loop sees doing nothing for 2 s (a loaded machine deschedules us);
 *   (1) baseline: the event loop's longest stall while a round's events are appended (write + fsync), REPS times;
 *   (2) remove: the longest stall while one run is removed (the journal rewritten), with a run's
 *       appends going on meanwhile (every 5 ms), and the removal's wall time;
 *   (3) retention with nothing due: what a finished run costs "keep N runs" when no run is pruned.
 * Prints the ratio stall(remove) / stall(append). Run: npx tsx --tsconfig tsconfig.main.json bench/journal-remove.ts
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { eventId, type RunEvent } from '@shared/contracts/events';
import { EventJournal } from '../src-main/events/event-journal';
import { historyPath } from '../src-main/events/history-db';
import { RunHistory } from '../src-main/events/run-history';
import { median } from './timed-median';

const EVENTS = Number(process.env.EVENTS ?? 260_000);
const RUNS = 1_000;
const REPS = 5;

const ts = new Date().toISOString();
const event = (run: string, seq: number): RunEvent => ({
  type: 'round.started',
  id: eventId(run, seq),
  run_id: run,
  seq,
  ts,
  round: seq,
  proposer: 'student',
});
const runName = (i: number) => `bench-run-${String(i).padStart(6, '0')}`;

/** The longest gap between turns of the event loop while `work` runs. */
async function longestStall(work: () => Promise<unknown>): Promise<{ stallMs: number; wallMs: number }> {
  let last = performance.now();
  let worst = 0;
  let done = false;
  const spin = () => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
    if (!done) setImmediate(spin);
  };
  setImmediate(spin);
  const start = performance.now();
  await work();
  const wallMs = performance.now() - start;
  done = true;
  await new Promise((resolve) => setImmediate(resolve));
  return { stallMs: Math.max(worst, performance.now() - last), wallMs };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'steward-bench-journal-'));
  try {
    const journal = EventJournal.open(historyPath(dir), { log: () => undefined });
    const perRun = Math.ceil(EVENTS / RUNS);
    const batch: RunEvent[] = [];
    for (let r = 0; r < RUNS; r++) {
      for (let s = 0; s < perRun; s++) batch.push(event(runName(r), s));
      if (batch.length >= 5_000) journal.append(batch.splice(0), { made: true });
    }
    journal.append(batch.splice(0), { made: true });
    const mb = statSync(journal.path).size / 1e6;
    console.log(`journal: ${journal.count} events of ${RUNS} runs, ${mb.toFixed(1)} MB`);

    // (0) Nothing at all: what the machine alone costs the loop.
    const idle = await longestStall(() => new Promise((resolve) => setTimeout(resolve, 2_000)));

    // (1) A round's dozen events, appended as the host's writer does: one write + fsync.
    let live = 0;
    const round = () => Array.from({ length: 12 }, () => event('bench-live-run', live++));
    const appendStalls: number[] = [];
    for (let i = 0; i < 20; i++) appendStalls.push((await longestStall(async () => void journal.append(round(), { made: true }))).stallMs);
    const append = median(appendStalls);

    // (2) Removing one run while a run keeps appending every 5 ms.
    const removeStalls: number[] = [];
    const removeWall: number[] = [];
    let appendedDuring = 0;
    for (let i = 0; i < REPS; i++) {
      const ticker = setInterval(() => {
        journal.append(round(), { made: true });
        appendedDuring += 12;
      }, 5);
      const measured = await longestStall(() => journal.remove([runName(i)]));
      clearInterval(ticker);
      removeStalls.push(measured.stallMs);
      removeWall.push(measured.wallMs);
    }
    const stall = median(removeStalls);

    // (3) "Keep N runs" after a run finishes, nothing due: no rewrite.
    const history = new RunHistory(journal, { activeIds: () => [], waitingRunIds: () => new Set() });
    const retentionMs: number[] = [];
    for (let i = 0; i < REPS; i++) {
      const start = performance.now();
      await history.applyRetention();
      retentionMs.push(performance.now() - start);
    }
    journal.close();

    console.log(`(0) idle for 2 s: longest stall ${idle.stallMs.toFixed(1)} ms (the machine's noise floor)`);
    console.log(`(1) append of a round (12 events, fsync): longest stall ${append.toFixed(2)} ms (median of 20)`);
    console.log(
      `(2) remove one run: longest stall ${stall.toFixed(1)} ms (median of ${REPS}; worst ${Math.max(...removeStalls).toFixed(1)} ms), ` +
        `wall ${median(removeWall).toFixed(0)} ms; ${appendedDuring} events appended meanwhile, all kept`,
    );
    console.log(`    → stall(remove) / stall(append) = ${(stall / append).toFixed(1)}×`);
    console.log(`(3) retention pass with nothing due: ${median(retentionMs).toFixed(1)} ms, no rewrite`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
