/**
 * bench/boundary — what the decision boundary costs per round, as the app is wired (issue 26).
 *
 *  bare        a loop calling the real filesystem MCP server's read_text_file directly (SDK client);
 *              it writes nothing durable. Its server lives through the bench (thousands of calls);
 *              a second bare loop spawns a server for each sample, as every run does (`fresh`)
 *  boundary    agent rounds run by the real host (createHost on a temp data folder on disk): the
 *              history database, the idempotency ledger in it, the journal writer (its windowed
 *              commits synced on the thread pool, the page told after), the feed, the real
 *              filesystem server, phase 3 supervision; every round the same read decision.
 *              The models are the replay provider (a scripted TEST DOUBLE at the model boundary)
 *              with zero latency. A round is timed from the page's side: the host pushes a round's
 *              `round.completed` to a subscribed page only once it is durable
 *  gated       the same with phase 2 (every round reviewed by a zero-latency scripted teacher)
 *  20 vs 200   the per-round cost of 20-round runs against that of 200-round runs, as many rounds of
 *              each, pooled (length growth); and within the long runs, their last 20 rounds against
 *              their first 20
 *  50 ms       the scripted model answering in 50 ms, against a bare loop sleeping 50 ms per call
 *  a write     every round an `edit_file` (dry run) the registry calls an irreversible write, so its
 *              ledger claim is synced before the call (a read's rides in the next commit), reviewed
 *              by the scripted teacher as phase 3 asks; against a bare loop making the same call
 *  machine     the boundary machine alone, effects stubbed (no MCP, no models, no history)
 *
 * Every figure is a ratio against a baseline measured in the same run. Median of SAMPLES.
 * Run: npm run bench (BENCH_ROUNDS, BENCH_SAMPLES shorten it while iterating).
 */
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createActor, fromPromise, toPromise } from 'xstate';
import type { AuthorizationFacts } from '@shared/boundary/authorization';
import { boundaryMachine, type AuthorizeInput, type ExecuteInput } from '@shared/boundary/machine';
import type { ToolExecution } from '@shared/contracts/round';
import type { ModelReply } from '@shared/contracts/model';
import { SupervisionSpec } from '@shared/contracts/spec';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { startToolHost } from '../src-main/mcp/mcp-tool-host';
import { bareLoop, freshBareLoop, openAppHost } from './boundary-host';
import { runMain } from './run-main';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const SHORT = 20;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);
const SLOW_MODEL_MS = 50;
const SLOW_ROUNDS = Number(process.env.BENCH_SLOW_ROUNDS ?? 40);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function sampled(fn: () => Promise<number>, samples = SAMPLES): Promise<number> {
  await fn(); // warm-up
  const xs: number[] = [];
  for (let i = 0; i < samples; i += 1) xs.push(await fn());
  return median(xs);
}

/** The boundary machine alone, effects stubbed: its own cost per round. */
async function machineAlone(snapshot: ToolSnapshot): Promise<number> {
  const decision = { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: '/bench.md' } };
  const reply: ModelReply = { text: JSON.stringify(decision), tool_calls: [], model: 'replay' };
  const machine = boundaryMachine.provide({
    actors: {
      propose: fromPromise(async () => reply),
      authorize: fromPromise<AuthorizationFacts, AuthorizeInput>(async () => ({ idempotency_key: 'k'.repeat(64), ledger: 'new', confirmation: 'not_needed' })),
      commit: fromPromise(async () => ({ history_index: 0 })),
      execute: fromPromise<ToolExecution, ExecuteInput>(async () => ({ server: 'fs', tool: 'read_text_file', arguments: {}, idempotency_key: 'k'.repeat(64), ok: true, is_error: false, content: 'x', duration_ms: 0 })),
    },
  });
  const supervision = SupervisionSpec.parse({ enabled: true, phase: 3 });
  return sampled(async () => {
    const t0 = performance.now();
    for (let i = 0; i < ROUNDS; i += 1) {
      const actor = createActor(machine, { input: { round: i, proposer: 'student', snapshot, supervision } });
      actor.on('*', () => undefined);
      actor.start();
      const record = await toPromise(actor);
      if (record.outcome !== 'executed') throw new Error('machine bench broke');
    }
    return (performance.now() - t0) / ROUNDS;
  });
}

async function main() {
  const app = await openAppHost();
  const bare = await bareLoop(app.folder, app.file, ROUNDS);
  const freshBare = await freshBareLoop(app.folder, app.file, ROUNDS);
  const slowBare = await bareLoop(app.folder, app.file, SLOW_ROUNDS, SLOW_MODEL_MS);
  const writeBare = await bareLoop(app.folder, app.file, ROUNDS, 0, true);
  try {
    // Interleaved, so a slower minute of the machine weighs on both sides of a ratio alike.
    const rows = { bare: [] as number[], freshBare: [] as number[], boundary: [] as number[], gated: [] as number[], slowBare: [] as number[], slow: [] as number[], writeBare: [] as number[], write: [] as number[] };
    // Rounds of short and long runs pooled (total time over total rounds): the database's periodic
    // checkpoint (every ~1,000 pages written) lands in long runs every time and in short ones now
    // and then, so a median of short runs would leave it out of one side only.
    const pooled = { short: { ms: 0, rounds: 0 }, long: { ms: 0, rounds: 0 } };
    // Within the long runs: a round among the first 20 and among the last 20 (the span over its
    // rounds: a read's round reaches the page with the next commit, so several can arrive together).
    const cpuPerRound: number[] = [];
    // The bare loop's CPU a call in this process, the same way: both sides' servers are processes of their own.
    const bareCpuPerCall: number[] = [];
    const early: number[] = [];
    const late: number[] = [];
    const span = (ends: number[]) => (ends.at(-1)! - ends[0]!) / (ends.length - 1);
    const perRound = (ends: number[]) => (ends.at(-1)! - ends[0]!) / (ends.length - 1);
    const pool = (into: { ms: number; rounds: number }, ends: number[]) => {
      into.ms += ends.at(-1)! - ends[0]!;
      into.rounds += ends.length - 1;
    };
    await bare.perCall();
    await app.run(SHORT, { phase: 3, latencyMs: 0 });
    for (let i = 0; i < SAMPLES; i += 1) {
      const bareCpu0 = process.cpuUsage();
      rows.bare.push(await bare.perCall());
      const bareUsed = process.cpuUsage(bareCpu0);
      bareCpuPerCall.push((bareUsed.user + bareUsed.system) / 1000 / ROUNDS);
      rows.freshBare.push(await freshBare.perCall());
      const cpu0 = process.cpuUsage();
      const long = await app.run(ROUNDS, { phase: 3, latencyMs: 0 });
      const used = process.cpuUsage(cpu0);
      // This process's CPU (every thread of it) a round, the run's start included: less moved by other work than wall time.
      cpuPerRound.push((used.user + used.system) / 1000 / ROUNDS);
      rows.boundary.push(perRound(long));
      pool(pooled.long, long);
      early.push(span(long.slice(0, SHORT + 1)));
      late.push(span(long.slice(-SHORT - 1)));
      rows.gated.push(perRound(await app.run(ROUNDS, { phase: 2, latencyMs: 0 })));
      // As many short rounds as long ones: 19 intervals a run are a noisy figure on their own.
      for (let k = 0; k < Math.ceil(ROUNDS / SHORT); k += 1) pool(pooled.short, await app.run(SHORT, { phase: 3, latencyMs: 0 }));
      rows.slowBare.push(await slowBare.perCall());
      rows.slow.push(perRound(await app.run(SLOW_ROUNDS, { phase: 3, latencyMs: SLOW_MODEL_MS })));
      rows.writeBare.push(await writeBare.perCall());
      rows.write.push(perRound(await app.run(ROUNDS, { phase: 3, latencyMs: 0, write: true })));
    }
    const m = Object.fromEntries(Object.entries(rows).map(([k, xs]) => [k, median(xs)])) as Record<keyof typeof rows, number>;
    // Each sample's ratio against the baseline measured just before it: less moved by the VM's speed drifting between samples.
    const paired = (base: number[], side: number[]) => median(side.map((ms, i) => base[i]! / ms));
    const pairedSlow = median(rows.slow.map((ms, i) => ms / rows.slowBare[i]!));
    const shortRound = pooled.short.ms / pooled.short.rounds;
    const longRound = pooled.long.ms / pooled.long.rounds;
    const toolHost = await startToolHost([{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: [app.folder] }], { vars: {}, overrides: {}, cwd: app.folder });
    const machine = await machineAlone(await toolHost.snapshot(0)).finally(() => toolHost.close());

    // The machine's load says how far the milliseconds can be trusted (the ratios travel better).
    console.log(`bench/boundary — ${ROUNDS}-round runs × ${SAMPLES} samples (median), as the app is wired; Node ${process.version}, ${availableParallelism()} CPUs, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    console.log('');
    console.log('| case | ms/round | rounds/s | vs its baseline |');
    console.log('|---|---:|---:|---:|');
    const row = (name: string, ms: number, base: number) => console.log(`| ${name} | ${ms.toFixed(3)} | ${(1000 / ms).toFixed(0)} | ${(ms / base).toFixed(2)}× time |`);
    row('bare MCP call (baseline)', m.bare, m.bare);
    row(`bare MCP call, a server new for the loop as for a run (${ROUNDS} calls)`, m.freshBare, m.bare);
    row(`full boundary round, phase 3 (${ROUNDS}-round run)`, m.boundary, m.bare);
    row(`full boundary round, phase 2, every round reviewed`, m.gated, m.bare);
    row(`full boundary round, phase 3 (${ROUNDS}-round runs, pooled)`, longRound, m.bare);
    row(`full boundary round, phase 3 (${SHORT}-round runs, pooled)`, shortRound, m.bare);
    row('boundary machine alone (no tool, no history)', machine, m.bare);
    row(`bare MCP call after a ${SLOW_MODEL_MS} ms sleep (baseline)`, m.slowBare, m.slowBare);
    row(`full boundary round, ${SLOW_MODEL_MS} ms model (${SLOW_ROUNDS}-round run)`, m.slow, m.slowBare);
    row('bare MCP edit_file call (baseline)', m.writeBare, m.writeBare);
    row(`full boundary round, phase 3, an irreversible write each round, reviewed (${ROUNDS}-round run)`, m.write, m.writeBare);
    console.log('');
    console.log(`supervised rounds vs bare loop (throughput): ${(m.bare / m.boundary).toFixed(2)}× (target ≥ 0.5×); sample by sample, against the bare loop just before: ${paired(rows.bare, rows.boundary).toFixed(2)}× (median)`);
    console.log(`  the same against a bare loop on a server new for it, as each run's is: ${(m.freshBare / m.boundary).toFixed(2)}×`);
    console.log(`the host process's CPU a phase 3 read round (all its threads, the run's start included): ${median(cpuPerRound).toFixed(3)} ms`);
    // Less moved by other work on the machine than wall time (a loaded machine delays the bare loop's ping-pong most).
    console.log(`the bare loop's CPU a call in this process: ${median(bareCpuPerCall).toFixed(3)} ms; CPU a call vs CPU a round: ${(median(bareCpuPerCall) / median(cpuPerRound)).toFixed(2)}×`);
    console.log(`a round of a ${ROUNDS}-round run vs one of a ${SHORT}-round run: ${(longRound / shortRound).toFixed(2)}× (target ≤ 1.1×)`);
    console.log(`within the ${ROUNDS}-round runs, a round among the last ${SHORT} vs among the first ${SHORT}: ${(median(late) / median(early)).toFixed(2)}×`);
    console.log(`writes: supervised rounds vs the bare loop making the same call: ${(m.writeBare / m.write).toFixed(2)}× (one sync per round, before the call)`);
    console.log(`with a ${SLOW_MODEL_MS} ms model, a round vs a bare call + sleep: ${(m.slow / m.slowBare).toFixed(3)}× (target ≤ 1.02×); sample by sample: ${pairedSlow.toFixed(3)}× (median)`);
  } finally {
    await bare.close();
    await slowBare.close();
    await writeBare.close();
    await app.close();
  }
}

runMain(main);
