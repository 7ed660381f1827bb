/**
 * bench/boundary — what the decision boundary costs.
 *
 *  bare      a loop calling the real filesystem MCP server's read_text_file directly (SDK client)
 *  boundary  full agent rounds through runAgent: per-round tool snapshot, the boundary machine,
 *            authorization + idempotency ledger, commit, the same MCP call, events and redaction;
 *            model calls are a zero-latency replay double (always the same read decision)
 *  gated     the same, fully gated (review: all): every round also gets a zero-latency teacher verdict
 *  machine   the boundary machine alone, effects stubbed (no MCP, no models): its own cost per round
 *
 * Ratios are against `bare`, measured in the same run. Median of SAMPLES runs of ROUNDS rounds.
 * Run: npm run bench
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createActor, fromPromise, toPromise } from 'xstate';
import type { AuthorizationFacts } from '@shared/boundary/authorization';
import { boundaryMachine, type AuthorizeInput, type ExecuteInput } from '@shared/boundary/machine';
import type { ToolExecution } from '@shared/contracts/round';
import type { ModelReply } from '@shared/contracts/model';
import { AgentSpec } from '@shared/contracts/spec';
import { runAgent } from '../src-main/engine/run-agent';
import { createMemoryLedger } from '../src-main/mcp/idempotency-ledger';
import { startToolHost } from '../src-main/mcp/mcp-tool-host';
import { resolvePackageBin } from '../src-main/mcp/server-launch';
import type { ModelProvider } from '../src-main/providers/provider';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);

const dir = mkdtempSync(join(tmpdir(), 'steward-bench-'));
const file = join(dir, 'notes.md');
writeFileSync(file, 'x'.repeat(1024));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function sample(fn: () => Promise<void>): Promise<number> {
  const times: number[] = [];
  await fn(); // warm-up
  for (let i = 0; i < SAMPLES; i += 1) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times) / ROUNDS; // ms per round
}

/** The model-boundary double: replies instantly with the same decision every call. */
function constantProvider(reply: unknown): ModelProvider {
  const text = JSON.stringify(reply);
  return { label: 'replay', complete: async (): Promise<ModelReply> => ({ text, tool_calls: [], model: 'replay' }) };
}
const readDecision = { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: file } };

async function main() {
  // bare: direct SDK calls on a filesystem server of its own
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [resolvePackageBin('@modelcontextprotocol/server-filesystem', 'fs'), dir], stderr: 'ignore' }));
  const bare = await sample(async () => {
    for (let i = 0; i < ROUNDS; i += 1) await client.callTool({ name: 'read_text_file', arguments: { path: file } });
  });
  await client.close();

  const toolHost = await startToolHost([{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: [dir] }], { vars: {}, overrides: {}, cwd: dir });
  const spec = (review: 'protected_effects' | 'all') =>
    AgentSpec.parse({
      format: 'steward/v1',
      kind: 'agent',
      id: 'bench',
      name: 'bench',
      instructions: 'read',
      task: 'read',
      supervision: { phase: review === 'all' ? 2 : 3 },
      limits: { max_rounds: ROUNDS, max_consecutive_failures: 1 },
    });
  const agentRounds = (review: 'protected_effects' | 'all') => async () => {
    const result = await runAgent({
      spec: spec(review),
      specDir: dir,
      ledger: createMemoryLedger(),
      onEvent: () => undefined,
      toolHost,
      providers: {
        student: constantProvider(readDecision),
        teacher: constantProvider({ verdict: 'accept', reason_codes: [], explanation: 'ok' }),
      },
    });
    if (result.rounds.length !== ROUNDS || result.executions.length !== ROUNDS) throw new Error(`bench run broke: ${result.status} ${result.message}`);
  };
  const boundary = await sample(agentRounds('protected_effects'));
  const gated = await sample(agentRounds('all'));
  const snapshot = await toolHost.snapshot(0);
  await toolHost.close();

  // machine only: the same boundary, effects stubbed
  const reply: ModelReply = { text: JSON.stringify(readDecision), tool_calls: [], model: 'replay' };
  const tool = snapshot.tools.find((t) => t.name === 'read_text_file');
  if (!tool) throw new Error('no read_text_file');
  const machine = boundaryMachine.provide({
    actors: {
      propose: fromPromise(async () => reply),
      authorize: fromPromise<AuthorizationFacts, AuthorizeInput>(async () => ({ idempotency_key: 'k'.repeat(64), ledger: 'new', confirmation: 'not_needed' })),
      commit: fromPromise(async () => ({ history_index: 0 })),
      execute: fromPromise<ToolExecution, ExecuteInput>(async () => ({ server: 'fs', tool: 'read_text_file', arguments: {}, idempotency_key: 'k'.repeat(64), ok: true, is_error: false, content: 'x', duration_ms: 0 })),
    },
  });
  const machineSupervision = spec('protected_effects').supervision;
  const machineOnly = await sample(async () => {
    for (let i = 0; i < ROUNDS; i += 1) {
      const actor = createActor(machine, { input: { round: i, proposer: 'student', snapshot, supervision: machineSupervision } });
      actor.on('*', () => undefined);
      actor.start();
      const record = await toPromise(actor);
      if (record.outcome !== 'executed') throw new Error('machine bench broke');
    }
  });

  const rows: Array<[string, number]> = [
    ['bare MCP call (baseline)', bare],
    ['full boundary round', boundary],
    ['full boundary round, fully gated', gated],
    ['boundary machine alone (no tool)', machineOnly],
  ];
  console.log(`bench/boundary — ${ROUNDS} rounds × ${SAMPLES} samples (median), Node ${process.version}`);
  console.log('');
  console.log('| case | ms/round | rounds/s | vs bare |');
  console.log('|---|---:|---:|---:|');
  for (const [name, ms] of rows) {
    console.log(`| ${name} | ${ms.toFixed(3)} | ${(1000 / ms).toFixed(0)} | ${(ms / bare).toFixed(2)}× time |`);
  }
  console.log('');
  console.log(`throughput ratio boundary/bare: ${(bare / boundary).toFixed(2)} (1.00 = no overhead)`);
  console.log(`boundary machine's own cost: ${((machineOnly / bare) * 100).toFixed(1)}% of one bare MCP call`);
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  // Server processes may still hold the event loop open after a failure.
  process.exit(1);
});
