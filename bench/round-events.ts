/**
 * bench/round-events — the engine's own work on each event a round records, before the history
 * sees it (issue 26): bounding what a model said (`boundModelText`, shared/history/model-text.ts)
 * and stamping the envelope (engine/event-stamper.ts). One real 200-round supervised read run of the
 * Notes demo is recorded by the app's host (boundary-host.ts; the scripted model is a TEST DOUBLE),
 * its stored events read back, and both steps run again over every round's events. BENCH_OTHER=path
 * of another model-text module (the tree before a change) is measured alternately in the same run.
 * Prints µs a round (best and median of BENCH_SAMPLES). CPU-bound, in one process: a loaded machine
 * moves both sides alike.
 *
 *   npx tsx --tsconfig tsconfig.main.json bench/round-events.ts
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { RunEvent, RunEventPayload } from '@shared/contracts/events';
import { boundModelText } from '@shared/history/model-text';
import { createEventStamper } from '../src-main/engine/event-stamper';
import { EventJournal } from '../src-main/events/event-journal';
import { historyPath } from '../src-main/events/history-db';
import { openAppHost } from './boundary-host';
import { runMain } from './run-main';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 15);
/** Each sample passes over the run this many times (a pass over 200 rounds is too short to time alone). */
const PASSES = Number(process.env.BENCH_PASSES ?? 20);

type Bound = (event: RunEventPayload) => RunEventPayload;

async function recordedEvents(): Promise<{ events: RunEvent[]; rounds: number }> {
  const app = await openAppHost();
  try {
    await app.run(200, { phase: 3, latencyMs: 0 });
    const reader = EventJournal.open(historyPath(app.dataDir), { log: () => undefined });
    try {
      const events = reader.read(0, 100_000).events;
      return { events, rounds: events.filter((e) => e.type === 'round.completed').length };
    } finally {
      reader.close();
    }
  } finally {
    await app.close();
  }
}

/** µs a round: every event bounded and stamped, PASSES times over the run. */
function sample(events: RunEvent[], rounds: number, bound: Bound): number {
  let sunk = 0;
  const stamper = createEventStamper('bench-run', () => {
    sunk += 1;
  });
  const t0 = performance.now();
  for (let pass = 0; pass < PASSES; pass += 1) for (const event of events) stamper.emit(bound(event));
  const us = ((performance.now() - t0) * 1000) / (rounds * PASSES);
  if (sunk !== events.length * PASSES) throw new Error('bench broke: events went missing');
  return us;
}

async function main() {
  const { events, rounds } = await recordedEvents();
  const sides: Array<[string, Bound]> = [['this tree', (e) => boundModelText(e)]];
  if (process.env.BENCH_OTHER) {
    const other = (await import(process.env.BENCH_OTHER)) as { boundModelText: Bound };
    sides.push([`other (${process.env.BENCH_OTHER})`, (e) => other.boundModelText(e)]);
  }
  const results = new Map<string, number[]>(sides.map(([name]) => [name, []]));
  // Warm both up first, then alternate, so a slower minute weighs on both sides alike.
  for (const [, bound] of sides) sample(events, rounds, bound);
  for (let i = 0; i < SAMPLES; i += 1) for (const [name, bound] of sides) results.get(name)!.push(sample(events, rounds, bound));
  console.log(`bench/round-events — ${rounds} rounds, ${events.length} events (${(events.length / rounds).toFixed(1)} a round), ${SAMPLES} samples × ${PASSES} passes, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  for (const [name, xs] of results) {
    const sorted = [...xs].sort((a, b) => a - b);
    console.log(`${name}: bounded and stamped, ${sorted[0]!.toFixed(1)} µs a round at best, ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} median`);
  }
}

runMain(main);
