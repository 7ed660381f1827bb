/**
 * bench/boundary-ab — what would move a zero-latency supervised read round (issue 26), measured as an A/B in
 * one process: `npx tsx --tsconfig tsconfig.main.json bench/boundary-ab.ts`. The host is the app's
 * (boundary-host.ts, the scripted model a TEST DOUBLE); its runs of 200 reads alternate between the tree as it
 * is and each setting below, AB_RUNS times (default 10), with a bare loop's 200 calls before each turn. On
 * this VM the same tree's figures move by half between runs minutes apart: only such alternation says anything.
 *
 *   tree             as the app runs
 *   no-window-sql    the writer's window commits skip SQLite (their events are told to the page as if stored,
 *                    their ledger rows never written): the most a worker thread owning the history's
 *                    writes could take off the main thread. A bench's patch of EventJournal, never the app's
 *   no-fdatasync     the window commits' sync on the thread pool does nothing (the disk's part)
 *
 * Prints, per setting, a round's wall time and the main thread's busy and idle time a round
 * (performance.eventLoopUtilization between the first and the last round's end), medians and best.
 */
import fs from 'node:fs';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { RunEvent } from '@shared/contracts/events';
import { EventJournal } from '../src-main/events/event-journal';
import { bareLoop, openAppHost } from './boundary-host';
import { runMain } from './run-main';

const RUNS = Number(process.env.AB_RUNS ?? 10);
const ROUNDS = 200;
const SETTINGS = ['tree', 'no-window-sql', 'no-fdatasync'] as const;
type Setting = (typeof SETTINGS)[number];
let setting: Setting = 'tree';

// The bench's patches, each active only under its setting.
type Journal = { headPos: number; readonly head: number; notify(slice: { events: RunEvent[]; after: number; position: number }): void };
const appendReport = EventJournal.prototype.appendReport;
EventJournal.prototype.appendReport = function patched(this: EventJournal, events, options = {}) {
  if (setting !== 'no-window-sql' || options.deferSync !== true) return appendReport.call(this, events, options);
  const journal = this as unknown as Journal;
  const after = journal.head;
  journal.headPos += events.length;
  journal.notify({ events: [...events], after, position: journal.head });
  return { appended: events.length, repeated: 0, refused: 0 };
};
const fdatasync = fs.fdatasync;
fs.fdatasync = ((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
  if (setting === 'no-fdatasync') setImmediate(() => callback(null));
  else fdatasync(fd, callback);
}) as typeof fs.fdatasync;

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;

async function main() {
  const elus: EventLoopUtilization[] = [];
  const app = await openAppHost({ onRoundEnd: () => elus.push(performance.eventLoopUtilization()) });
  const bare = await bareLoop(app.folder, app.file, ROUNDS);
  try {
    await app.run(20, { phase: 3, latencyMs: 0 });
    const bares: number[] = [];
    const rows = new Map(SETTINGS.map((s) => [s, { wall: [] as number[], busy: [] as number[], idle: [] as number[] }]));
    for (let i = 0; i < RUNS; i += 1) {
      for (const s of SETTINGS) {
        bares.push(await bare.perCall());
        setting = s;
        elus.length = 0;
        const ends = await app.run(ROUNDS, { phase: 3, latencyMs: 0 });
        setting = 'tree';
        const used = performance.eventLoopUtilization(elus.at(-1), elus[0]);
        const row = rows.get(s)!;
        row.wall.push((ends.at(-1)! - ends[0]!) / (ends.length - 1));
        row.busy.push(used.active / (ends.length - 1));
        row.idle.push(used.idle / (ends.length - 1));
      }
    }
    const bareMs = quantile(bares, 0.5);
    console.log(`bench/boundary-ab — ${RUNS} runs of ${ROUNDS} reads a setting, alternating; a bare call ${bareMs.toFixed(3)} ms (median), ${quantile(bares, 0).toFixed(3)} at best`);
    console.log('| setting | a round, median · best | main thread busy a round | idle a round | vs bare (median) |');
    console.log('|---|---:|---:|---:|---:|');
    for (const [s, row] of rows) {
      console.log(`| ${s} | ${quantile(row.wall, 0.5).toFixed(3)} · ${quantile(row.wall, 0).toFixed(3)} ms | ${quantile(row.busy, 0.5).toFixed(3)} ms | ${quantile(row.idle, 0.5).toFixed(3)} ms | ${(bareMs / quantile(row.wall, 0.5)).toFixed(2)}× |`);
    }
  } finally {
    await bare.close();
    await app.close();
  }
}

runMain(main);
