/**
 * bench/journal-append — the history's main-thread cost of a round's events, as the host's writer
 * appends them (issue 26): one real 200-round supervised run of the Notes demo is recorded by the
 * app's host (boundary-host.ts, the scripted model a TEST DOUBLE), then its events are appended
 * again into fresh history databases on disk, BENCH_WINDOW_ROUNDS rounds to a commit (the writer's
 * 5 ms window holds about two rounds of a zero-latency run), each commit with `deferSync` as the
 * writer makes it. BENCH_OTHER=path of another event-journal module (an A/B: the tree before a
 * change, BENCH_OTHER_WINDOW_ROUNDS its rounds a commit) is measured alternately in the same run.
 * Prints the main thread's ms per round (best and median of SAMPLES). CPU-bound and short, so a
 * loaded machine moves it less than the end-to-end bench.
 *
 *   npx tsx --tsconfig tsconfig.main.json bench/journal-append.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { RunEvent } from '@shared/contracts/events';
import { EventJournal } from '../src-main/events/event-journal';
import { historyPath } from '../src-main/events/history-db';
import { openAppHost } from './boundary-host';
import { runMain } from './run-main';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 15);
/** Rounds a commit: a zero-latency run's 2.5 ms rounds give about 2 in the writer's 5 ms window (8 in a 20 ms one). */
const WINDOW = Number(process.env.BENCH_WINDOW_ROUNDS ?? 2);
const OTHER_WINDOW = Number(process.env.BENCH_OTHER_WINDOW_ROUNDS ?? WINDOW);

interface AppendingJournal {
  appendReport(events: readonly RunEvent[], options: { made: boolean; deferSync: boolean }): unknown;
  settled(): Promise<void>;
  close(): void;
}

/** The run's events, cut into rounds (a round ends with its round.completed). */
async function recordedRounds(): Promise<RunEvent[][]> {
  const app = await openAppHost();
  try {
    await app.run(200, { phase: 3, latencyMs: 0 });
    const reader = EventJournal.open(historyPath(app.dataDir), { log: () => undefined });
    try {
      const events = reader.read(0, 100_000).events;
      const rounds: RunEvent[][] = [[]];
      for (const event of events) {
        rounds.at(-1)!.push(event);
        if (event.type === 'round.completed') rounds.push([]);
      }
      return rounds.filter((round) => round.length > 0);
    } finally {
      reader.close();
    }
  } finally {
    await app.close();
  }
}

/** ms of the main thread a round, appending every round of the run WINDOW at a time. */
async function sample(open: (file: string) => AppendingJournal, rounds: RunEvent[][], window: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'steward-bench-append-'));
  const journal = open(join(dir, 'history.sqlite'));
  try {
    let busy = 0;
    for (let i = 0; i < rounds.length; i += window) {
      const batch = rounds.slice(i, i + window).flat();
      const t0 = performance.now();
      journal.appendReport(batch, { made: true, deferSync: true });
      busy += performance.now() - t0;
      // The next window's events come while the thread pool syncs this one, as in the host.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await journal.settled();
    return busy / rounds.length;
  } finally {
    journal.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const rounds = await recordedRounds();
  const events = rounds.reduce((n, round) => n + round.length, 0);
  // Another implementation to compare with (an A/B in the same minutes): BENCH_OTHER=path of a module exporting EventJournal.
  const other = process.env.BENCH_OTHER ? ((await import(process.env.BENCH_OTHER)) as { EventJournal: { open(file: string, options: object): AppendingJournal } }).EventJournal : undefined;
  const sides: Array<[string, (file: string) => AppendingJournal, number]> = [[`this tree, ${WINDOW} rounds a commit`, (file) => EventJournal.open(file, { log: () => undefined }), WINDOW]];
  if (other) sides.push([`other (${process.env.BENCH_OTHER}), ${OTHER_WINDOW} rounds a commit`, (file) => other.open(file, { log: () => undefined }), OTHER_WINDOW]);
  const results = new Map<string, number[]>(sides.map(([name]) => [name, []]));
  // Alternated, so a slower minute weighs on both sides alike.
  for (let i = 0; i < SAMPLES; i += 1) for (const [name, open, window] of sides) results.get(name)!.push(await sample(open, rounds, window));
  console.log(`bench/journal-append — ${rounds.length} rounds, ${events} events (${(events / rounds.length).toFixed(1)} a round), ${SAMPLES} samples, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  for (const [name, xs] of results) {
    const sorted = [...xs].sort((a, b) => a - b);
    console.log(`${name}: main thread ${sorted[0]!.toFixed(3)} ms a round at best, ${sorted[Math.floor(sorted.length / 2)]!.toFixed(3)} median`);
  }
}

runMain(main);
