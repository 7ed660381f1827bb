/**
 * bench/boundary-profile — the supervised read round of bench/boundary alone, for a profiler
 * (issue 26): `npx tsx --tsconfig tsconfig.main.json --cpu-prof --cpu-prof-dir=DIR bench/boundary-profile.ts`,
 * then `node bench/profile-self-time.mjs DIR/<file>.cpuprofile`. The host is the app's (boundary-host.ts);
 * the model is the scripted TEST DOUBLE. PROFILE_LATENCY_MS=50 profiles the 50 ms model's case.
 * Prints ms a round per run and the median; with PROFILE_BARE=1 a bare loop alternates with the runs.
 *
 * Without --cpu-prof (whose profile also holds the modules' loading and the warm-up):
 *   PROFILE_OUT=FILE       a CPU profile of the timed runs only (node:inspector, started after the warm-up,
 *                          50 µs sampling); `PROFILE_ROUNDS=2000 node bench/profile-self-time.mjs FILE` reads it
 *   PROFILE_HEAP_OUT=FILE  a sampling heap profile of the timed runs (every allocation, collected or not);
 *                          `node bench/allocation-by-library.mjs FILE ROUNDS` reads it
 * Always printed: this process's CPU a round by thread (Linux /proc: the event loop, the others together) and
 * the whole machine's busy CPU a round (/proc/stat, every process: the MCP servers', their spawns included).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { machineCpuMs, threadsCpuMs } from './proc-cpu';
import { bareLoop, openAppHost } from './boundary-host';
import { runMain } from './run-main';
import { spanAppends, spanToolCalls } from './host-spans';

/** Main-thread time inside the history's appends (spans around EventJournal.appendReport). */
let inAppends = 0;
spanAppends((_, ms) => (inAppends += ms));

/**
 * Time a round's tool call is in flight (from the SDK client's callTool to its result; the bare loop's
 * calls are timed apart, by its own clock): what a round spends outside it is the host's own path.
 */
let inFlight = 0;
let timingCalls = false;
spanToolCalls((_, ms) => {
  if (timingCalls) inFlight += ms;
});

const RUNS = Number(process.env.PROFILE_RUNS ?? 10);
const ROUNDS = Number(process.env.PROFILE_ROUNDS ?? 200);
const LATENCY = Number(process.env.PROFILE_LATENCY_MS ?? 0);

async function main() {
  const app = await openAppHost();
  const bare = process.env.PROFILE_BARE === '1' ? await bareLoop(app.folder, app.file, LATENCY > 0 ? 40 : ROUNDS, LATENCY) : undefined;
  try {
    await app.run(20, { phase: 3, latencyMs: LATENCY });
    // A second warm-up when only the timed runs are profiled: the JIT has settled by then.
    const profiling = Boolean(process.env.PROFILE_OUT || process.env.PROFILE_HEAP_OUT);
    if (profiling) await app.run(ROUNDS, { phase: 3, latencyMs: LATENCY });
    const session = profiling ? new Session() : undefined;
    session?.connect();
    if (process.env.PROFILE_OUT) {
      await session!.post('Profiler.enable');
      await session!.post('Profiler.setSamplingInterval', { interval: 50 });
      await session!.post('Profiler.start');
    }
    if (process.env.PROFILE_HEAP_OUT) {
      await session!.post('HeapProfiler.enable');
      await session!.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    }
    const threads0 = threadsCpuMs();
    const machine0 = machineCpuMs();
    const rounds: number[] = [];
    const bares: number[] = [];
    const bareCpu: number[] = [];
    const cpu: number[] = [];
    const appends: number[] = [];
    const flights: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < RUNS; i += 1) {
      if (bare) {
        const b0 = process.cpuUsage();
        bares.push(await bare.perCall());
        const used = process.cpuUsage(b0);
        // This process's CPU a bare call (the SDK client's side; the server is a process of its own, as in the host's case).
        bareCpu.push((used.user + used.system) / 1000 / (LATENCY > 0 ? 40 : ROUNDS));
      }
      const c0 = process.cpuUsage();
      const a0 = inAppends;
      const f0 = inFlight;
      timingCalls = true;
      const ends = await app.run(ROUNDS, { phase: 3, latencyMs: LATENCY });
      timingCalls = false;
      flights.push((inFlight - f0) / ROUNDS);
      const used = process.cpuUsage(c0);
      // This process's CPU (every thread: the event loop, the thread pool's syncs) a round, whole run included.
      cpu.push((used.user + used.system) / 1000 / ROUNDS);
      appends.push((inAppends - a0) / ROUNDS);
      rounds.push((ends.at(-1)! - ends[0]!) / (ends.length - 1));
    }
    const threads1 = threadsCpuMs();
    const machine1 = machineCpuMs();
    if (process.env.PROFILE_OUT) writeFileSync(process.env.PROFILE_OUT, JSON.stringify((await session!.post('Profiler.stop')).profile));
    if (process.env.PROFILE_HEAP_OUT) writeFileSync(process.env.PROFILE_HEAP_OUT, JSON.stringify((await session!.post('HeapProfiler.stopSampling')).profile));
    session?.disconnect();
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
    console.log(`rounds (ms): ${rounds.map((x) => x.toFixed(3)).join(' ')}; median ${median(rounds).toFixed(3)}; total ${(performance.now() - t0).toFixed(0)} ms`);
    console.log(`process CPU a round (ms, the run's start included): ${cpu.map((x) => x.toFixed(3)).join(' ')}; median ${median(cpu).toFixed(3)}`);
    console.log(`main thread inside history appends a round (ms): median ${median(appends).toFixed(3)}`);
    console.log(`a round's tool call in flight (ms): median ${median(flights).toFixed(3)}; the rest of a round (the host's own path): ${(median(rounds) - median(flights)).toFixed(3)}`);
    const timed = RUNS * ROUNDS;
    if (threads0 && threads1 && machine0 && machine1) {
      const others = threads1.others - threads0.others;
      console.log(
        `this process's CPU a round by thread (the runs' starts included${bare ? ', the bare loop too' : ''}): the event loop ${((threads1.main - threads0.main) / timed).toFixed(3)} ms, ` +
          `its other threads (V8's GC and compiler helpers, libuv's pool; the profiler's too when one runs) ${(others / timed).toFixed(3)} ms; the machine's busy CPU a round, every process: ${((machine1 - machine0) / timed).toFixed(3)} ms`,
      );
    }
    if (bare) console.log(`bare (ms): ${bares.map((x) => x.toFixed(3)).join(' ')}; median ${median(bares).toFixed(3)}; ratio ${(median(bares) / median(rounds)).toFixed(2)}×`);
    if (bare) console.log(`bare loop's CPU a call in this process (ms): median ${median(bareCpu).toFixed(3)}; against a round's ${median(cpu).toFixed(3)}: ${(median(bareCpu) / median(cpu)).toFixed(2)}×`);
  } finally {
    await bare?.close();
    await app.close();
  }
}

runMain(main);
