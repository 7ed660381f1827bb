/**
 * bench/server-warmup — what a stdio MCP server's age costs a call (issue 26's boundary figures). Every
 * run spawns its own filesystem server, so a run's calls are a new process's first: this times 200
 * `read_text_file` calls on a server spawned for them, against 200 on one that has already answered
 * WARM calls (the bare loop of bench/boundary is somewhere between: its server has answered 200 to
 * 1,200 calls when a sample is taken). Each case tight (the next call as soon as the answer is in),
 * and with GAP_MS of busy work between calls (a round's own path in the host), and with the
 * server's own CPU a call (user + system from /proc/PID/stat: Linux only). The SDK client, the
 * shipped server package, a 1 KB file. Median of SAMPLES servers each.
 * Run: npx tsx --tsconfig tsconfig.main.json bench/server-warmup.ts
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { resolvePackageBin } from '../src-main/mcp/server-launch';
import { runMain } from './run-main';

const CALLS = 200;
const WARM = Number(process.env.WARM ?? 4_000);
const GAP_MS = Number(process.env.GAP_MS ?? 1.2);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 3);

/** A process's CPU so far (user + system), in ms, from its /proc stat line (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // the host's own work between two calls
  }
};

async function sample(folder: string, file: string, warm: number, gapMs: number): Promise<{ call: number; serverCpu: number }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [resolvePackageBin('@modelcontextprotocol/server-filesystem', 'fs'), folder], stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  try {
    const read = () => client.callTool({ name: 'read_text_file', arguments: { path: file } });
    for (let i = 0; i < warm; i += 1) await read();
    const pid = transport.pid;
    if (pid === null) throw new Error('the server has no pid');
    const cpu0 = cpuMs(pid);
    let inCalls = 0;
    for (let i = 0; i < CALLS; i += 1) {
      if (gapMs > 0) busy(gapMs);
      const t0 = performance.now();
      await read();
      inCalls += performance.now() - t0;
    }
    // The last tick's accounting settles.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { call: inCalls / CALLS, serverCpu: (cpuMs(pid) - cpu0) / CALLS };
  } finally {
    await client.close();
  }
}

async function main() {
  const folder = mkdtempSync(join(tmpdir(), 'steward-bench-warmup-'));
  const file = join(folder, 'bench.md');
  writeFileSync(file, 'x'.repeat(1024));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  try {
    const cases = [
      { name: 'a new server, tight', warm: 0, gap: 0 },
      { name: `a server after ${WARM.toLocaleString('en')} calls, tight`, warm: WARM, gap: 0 },
      { name: `a new server, ${GAP_MS} ms busy between calls`, warm: 0, gap: GAP_MS },
      { name: `a server after ${WARM.toLocaleString('en')} calls, ${GAP_MS} ms busy between calls`, warm: WARM, gap: GAP_MS },
    ];
    const results = cases.map(() => ({ call: [] as number[], cpu: [] as number[] }));
    // Interleaved, so a slower minute weighs on every case alike.
    for (let s = 0; s < SAMPLES; s += 1) {
      for (const [i, c] of cases.entries()) {
        const r = await sample(folder, file, c.warm, c.gap);
        results[i]!.call.push(r.call);
        results[i]!.cpu.push(r.serverCpu);
      }
    }
    console.log(`bench/server-warmup — ${CALLS} read_text_file calls a sample, median of ${SAMPLES}; the server's CPU from /proc`);
    console.log('');
    console.log('| case | ms a call (the client\'s view) | the server\'s CPU a call |');
    console.log('|---|---:|---:|');
    cases.forEach((c, i) => console.log(`| ${c.name} | ${median(results[i]!.call).toFixed(3)} | ${median(results[i]!.cpu).toFixed(3)} ms |`));
    console.log('');
    console.log(`a new server's call against a warm one's: tight ${(median(results[0]!.call) / median(results[1]!.call)).toFixed(2)}×, with the gap ${(median(results[2]!.call) / median(results[3]!.call)).toFixed(2)}×`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

runMain(main);
