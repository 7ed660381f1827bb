/**
 * bench/workflow — what running a graph costs over calling things in a loop.
 *
 * (a) per node, NODES tool nodes in a chain, each one real `read_text_file` call on the filesystem
 *     MCP server:
 *       bare       a loop making the same calls directly through the SDK client (the baseline)
 *       workflow   runWorkflow over the chain: the pure scheduler, one invocation per node, each call
 *                  crossing the decision boundary (snapshot validation, authorization with the
 *                  idempotency ledger, commit), the same MCP call, node.invocation events, redaction
 *       reducer    the scheduler alone on the same graph, every `run` answered `done` at once: its
 *                  own cost per node
 * (b) iterate over ITEMS items at concurrency 4, a template node per item (trivial work):
 *       bare       4 workers pulling items from a shared index and rendering the same template
 *       workflow   runWorkflow: input → iterate → template → collect → output
 *       reducer    the scheduler alone on that graph
 *
 * Ratios are against `bare`, measured in the same run. Median of SAMPLES runs.
 * Run: npm run bench:workflow (npm run bench runs this after bench/boundary)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { WorkflowGraph, type WorkflowGraphInput } from '@shared/workflow/document';
import { createScheduler, schedule, type SchedulerCommand, type SchedulerEvent } from '@shared/workflow/scheduler';
import { renderJsonTemplate } from '@shared/workflow/template';
import { createMemoryLedger } from '../src-main/mcp/idempotency-ledger';
import { startToolHost } from '../src-main/mcp/mcp-tool-host';
import { resolvePackageBin } from '../src-main/mcp/server-launch';
import { runWorkflow } from '../src-main/workflow/run-workflow';

const NODES = Number(process.env.BENCH_NODES ?? 100);
const ITEMS = Number(process.env.BENCH_ITEMS ?? 1000);
const CONCURRENCY = 4;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);

const dir = mkdtempSync(join(tmpdir(), 'steward-bench-wf-'));
const file = join(dir, 'notes.md');
writeFileSync(file, 'x'.repeat(1024));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** Median ms of one run of `fn` over SAMPLES runs after a warm-up. */
async function sample(fn: () => Promise<void>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

/** input → read-1 → read-2 → … → output: each read waits for the previous one's result. */
function chainGraph(): WorkflowGraph {
  const reads = Array.from({ length: NODES }, (_, i) => ({
    id: `read-${i + 1}`,
    kind: 'tool' as const,
    server: 'fs',
    tool: 'read_text_file',
    inputs: [{ name: 'after', type: 'any' as const }],
    arguments: { path: file },
  }));
  const doc: WorkflowGraphInput = {
    format: 'steward/v1',
    kind: 'workflow',
    id: 'bench-chain',
    name: 'bench chain',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: [dir] }],
    nodes: [
      { id: 'input', kind: 'input', fields: [{ name: 'start', type: 'any', default: 'go' }] },
      ...reads,
      { id: 'output', kind: 'output', fields: [{ name: 'last', type: 'text' }] },
    ],
    edges: [
      ...reads.map((r, i) => ({ from: i === 0 ? { node: 'input', port: 'start' } : { node: `read-${i}`, port: 'result' }, to: { node: r.id, port: 'after' } })),
      { from: { node: `read-${NODES}`, port: 'text' }, to: { node: 'output', port: 'last' } },
    ],
  };
  return WorkflowGraph.parse(doc);
}

const ITEM_TEMPLATE = { n: '{{item}}', label: 'item {{item}}' };

function fanoutGraph(): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'bench-fanout',
    name: 'bench fan-out',
    nodes: [
      { id: 'input', kind: 'input', fields: [{ name: 'items', type: 'list' }] },
      { id: 'each', kind: 'iterate', concurrency: CONCURRENCY },
      { id: 'work', kind: 'template', format: 'json', inputs: [{ name: 'item', type: 'any' }], template: ITEM_TEMPLATE },
      { id: 'gather', kind: 'collect' },
      { id: 'output', kind: 'output', fields: [{ name: 'all', type: 'list' }] },
    ],
    edges: [
      { from: { node: 'input', port: 'items' }, to: { node: 'each', port: 'list' } },
      { from: { node: 'each', port: 'item' }, to: { node: 'work', port: 'item' } },
      { from: { node: 'work', port: 'output' }, to: { node: 'gather', port: 'item' } },
      { from: { node: 'gather', port: 'list' }, to: { node: 'output', port: 'all' } },
    ],
  } satisfies WorkflowGraphInput);
}

/**
 * The scheduler alone: every `run` is answered `done` with `outputs(invocation)` at once (a
 * queue, no I/O); returns how many invocations ran and how the run finished.
 */
function reducerOnly(graph: WorkflowGraph, inputs: Record<string, unknown>, outputs: (inputs: Record<string, unknown>) => Record<string, unknown>): { runs: number; status: string } {
  let state = createScheduler(graph);
  const queue: SchedulerEvent[] = [{ type: 'start', inputs }];
  let runs = 0;
  let status = 'none';
  for (let event = queue.shift(); event !== undefined; event = queue.shift()) {
    const next = schedule(state, event);
    state = next.state;
    for (const command of next.commands as SchedulerCommand[]) {
      if (command.type === 'run') {
        runs += 1;
        queue.push({ type: 'done', id: command.invocation.id, outputs: outputs(command.invocation.inputs) });
      } else if (command.type === 'finished') {
        status = command.status;
      }
    }
  }
  return { runs, status };
}

async function main() {
  // (a) per node: a chain of real tool calls
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [resolvePackageBin('@modelcontextprotocol/server-filesystem', 'fs'), dir], stderr: 'ignore' }));
  const bareChain = await sample(async () => {
    for (let i = 0; i < NODES; i += 1) await client.callTool({ name: 'read_text_file', arguments: { path: file } });
  });
  await client.close();

  const chain = chainGraph();
  const toolHost = await startToolHost(chain.servers, { vars: {}, overrides: {}, cwd: dir });
  const workflowChain = await sample(async () => {
    const run = await runWorkflow({ graph: chain, specDir: dir, inputs: {}, ledger: createMemoryLedger(), onEvent: () => undefined, toolHost });
    if (run.status !== 'completed') throw new Error(`bench chain broke: ${run.status} ${run.message ?? ''}`);
  });
  await toolHost.close();
  const reducerChain = await sample(async () => {
    const r = reducerOnly(chain, { start: 'go' }, () => ({ result: { content: 'x' }, text: 'x' }));
    if (r.runs !== NODES || r.status !== 'completed') throw new Error(`reducer chain broke: ${r.runs} runs, ${r.status}`);
  });

  // (b) iterate over ITEMS items at concurrency 4, trivial work
  const items = Array.from({ length: ITEMS }, (_, i) => i);
  const bareFanout = await sample(async () => {
    const out: unknown[] = new Array<unknown>(ITEMS);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < ITEMS; i = next++) {
        await Promise.resolve();
        const r = renderJsonTemplate(ITEM_TEMPLATE, { item: items[i] });
        if (!r.ok) throw new Error(r.message);
        out[i] = r.value;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  });
  const fanout = fanoutGraph();
  const workflowFanout = await sample(async () => {
    const run = await runWorkflow({ graph: fanout, specDir: dir, inputs: { items }, ledger: createMemoryLedger(), onEvent: () => undefined });
    const all = run.outputs.all;
    if (run.status !== 'completed' || !Array.isArray(all) || all.length !== ITEMS) throw new Error(`bench fan-out broke: ${run.status} ${run.message ?? ''}`);
  });
  const reducerFanout = await sample(async () => {
    const r = reducerOnly(fanout, { items }, (inputs) => ({ output: { n: inputs.item } }));
    if (r.runs !== ITEMS || r.status !== 'completed') throw new Error(`reducer fan-out broke: ${r.runs} runs, ${r.status}`);
  });

  console.log(`bench/workflow — ${SAMPLES} samples (median), Node ${process.version}`);
  console.log('');
  console.log(`(a) a chain of ${NODES} tool nodes, one real read_text_file call each`);
  console.log('');
  console.log('| case | ms/node | nodes/s | vs bare |');
  console.log('|---|---:|---:|---:|');
  const perNode = (ms: number) => ms / NODES;
  for (const [name, ms] of [
    ['bare MCP calls in a loop (baseline)', bareChain],
    ['runWorkflow (scheduler + boundary + MCP)', workflowChain],
    ['scheduler alone (no tool)', reducerChain],
  ] as const) {
    console.log(`| ${name} | ${perNode(ms).toFixed(3)} | ${(1000 / perNode(ms)).toFixed(0)} | ${(ms / bareChain).toFixed(2)}× time |`);
  }
  console.log('');
  console.log(`workflow overhead per node: ${(perNode(workflowChain) - perNode(bareChain)).toFixed(3)} ms over a bare call; throughput ratio ${(bareChain / workflowChain).toFixed(2)} (1.00 = no overhead)`);
  console.log('');
  console.log(`(b) iterate over ${ITEMS} items at concurrency ${CONCURRENCY}, a template per item`);
  console.log('');
  console.log('| case | µs/item | items/s | vs bare |');
  console.log('|---|---:|---:|---:|');
  const perItem = (ms: number) => (ms / ITEMS) * 1000;
  for (const [name, ms] of [
    ['bare loop, 4 workers (baseline)', bareFanout],
    ['runWorkflow (iterate → template → collect)', workflowFanout],
    ['scheduler alone', reducerFanout],
  ] as const) {
    console.log(`| ${name} | ${perItem(ms).toFixed(1)} | ${((ITEMS / ms) * 1000).toFixed(0)} | ${(ms / bareFanout).toFixed(1)}× time |`);
  }
  console.log('');
  console.log(`throughput ratio workflow/bare: ${(bareFanout / workflowFanout).toFixed(4)}`);
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  // Server processes may still hold the event loop open after a failure.
  process.exit(1);
});
