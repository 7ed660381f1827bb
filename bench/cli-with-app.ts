/**
 * bench/cli-with-app — what a `steward run` costs while the app runs (issue 22) against the same run
 * with the app stopped. Both are the real command (`out/main/cli.js`, one process per run) on the
 * same agent spec (the notes sandbox, the filesystem MCP server, a replay student reading one note
 * then completing):
 *   alone      no host on the data folder: the command runs in-process and writes its events
 *              straight into the history database as they go (the baseline)
 *   with app   the built host (`out/main/server.js`) holds the folder: the command hands the run to
 *              it over the CLI channel and relays its output; the run lands in the host's journal
 * Runs alternate (alone, with app, …) so drift in machine load hits both; median of SAMPLES after a
 * warm-up of each. The ratio is with-app / alone, measured in the same run. Needs `npm run build`.
 * Run: npm run bench:cli
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startHostProcess } from '../test-support/host-process';
import { ensureBuilt } from '../test-support/ensure-built';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 9);
const CLI = join(process.cwd(), 'out/main/cli.js');

ensureBuilt();
const dir = mkdtempSync(join(tmpdir(), 'steward-bench-cli-'));
cpSync(join(process.cwd(), 'resources/examples/notes-sandbox'), join(dir, 'notes-sandbox'), { recursive: true });
const spec = join(dir, 'spec.json');
writeFileSync(
  spec,
  JSON.stringify({
    format: 'steward/v1',
    kind: 'agent',
    id: 'bench-cli',
    name: 'Bench CLI',
    instructions: 'Work in ${workspace}.',
    task: 'Read a note.',
    workspace: 'notes-sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file'] }],
    supervision: { enabled: false },
    script: {
      latency_ms: 0,
      student: [
        { json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: '${workspace}/ideas.md' } } },
        { json: { decision_type: 'complete', output: 'Read it.' } },
      ],
      teacher: [],
    },
  }),
);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** One `steward run` to its exit, in ms; a run that does not complete stops the bench. */
function runOnce(dataDir: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'run', spec, '--json', '--data-dir', dataDir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`steward run exited ${code}: ${stderr}`))));
  });
}

const aloneDir = join(dir, 'alone');
const appDir = join(dir, 'app');
// The app's data folder is its own (a host holds it for the whole bench); the baseline's has none.
spawnSync(process.execPath, [CLI, 'runs', 'waiting', '--data-dir', aloneDir]);
const host = await startHostProcess(appDir);
try {
  await runOnce(aloneDir);
  await runOnce(appDir);
  const alone: number[] = [];
  const withApp: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    alone.push(await runOnce(aloneDir));
    withApp.push(await runOnce(appDir));
  }
  const a = median(alone);
  const w = median(withApp);
  console.log(`bench/cli-with-app · ${SAMPLES} runs each, alternating · median ms per steward run (process start to exit)`);
  console.log(`  alone (app stopped)   ${a.toFixed(0)} ms   (baseline)`);
  console.log(`  with the app running  ${w.toFixed(0)} ms   ${(w / a).toFixed(2)}×`);
} finally {
  await host.stop();
  rmSync(dir, { recursive: true, force: true });
}
