import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunEvent } from '@shared/contracts/events';
import type { ModelScriptInput } from '@shared/contracts/script';
import { AgentSpec, type AgentSpecInput } from '@shared/contracts/spec';

/**
 * Issue 26: the scripted runs whose events must stay byte for byte what they were while the emit
 * path is made cheaper (src-main/engine/events-unchanged.test.ts). The engine is passed in, so the
 * same runs can be recorded with an older tree's engine (the fixture) and compared with this one's.
 * The model is the scripted TEST DOUBLE; the tools are the real filesystem MCP server.
 *
 * What a run cannot repeat is normalised: times and durations, the workspace's folder, and hashes
 * of it (idempotency keys, numbered in order of appearance). A text over 1,000 characters is kept
 * as its length and hash (the fixture stays small; a change to any byte of it still shows).
 */
export interface ScenarioEngine {
  runAgent(options: Record<string, unknown>): Promise<{ status: string; message?: string }>;
  createMemoryLedger(): unknown;
}

const NOTES = fileURLToPath(new URL('../resources/examples/notes-sandbox', import.meta.url));

function spec(extra: Partial<AgentSpecInput>) {
  return AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'events-unchanged',
    name: 'Events unchanged',
    instructions: 'Work in ${workspace}.',
    task: 'Read the notes, write a summary, then finish.',
    workspace: 'notes-sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file', 'write_file'] }],
    ...extra,
  });
}

export async function recordScenario(engine: ScenarioEngine): Promise<unknown[]> {
  // A folder name of fixed length: prompts quote it, and the privacy log counts their bytes.
  const dir = mkdtempSync(join(process.platform === 'win32' ? tmpdir() : '/tmp', 'steward-evt-'));
  const workspace = join(dir, 'notes-sandbox');
  cpSync(NOTES, workspace, { recursive: true });
  try {
    const read = (file: string) => ({ json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: join(workspace, file) } } });
    const accept = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };
    const runs: Array<{ extra: Partial<AgentSpecInput>; script: ModelScriptInput }> = [
      {
        // Phase 2: a candidate that is not JSON (its feedback), reads, a write with a sensitive argument, a long output (trimmed).
        extra: { supervision: { phase: 2 }, tool_effects: { 'fs/write_file': { effect: 'reversible_write', sensitive_arguments: ['content'] } } },
        script: {
          latency_ms: 0,
          student: [
            { text: 'I will read the notes first: {"decision_type": "tool_call", "tool_name": ' },
            read('meeting-notes.md'),
            read('ideas.md'),
            { json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(workspace, 'summary.md'), content: 'SENSITIVE-summary-9d1e' } } },
            { json: { decision_type: 'complete', output: `Summary written. ${'A long report line. '.repeat(1200)}` } },
          ],
          teacher: [accept, accept, accept, accept, accept],
        },
      },
      {
        // Phase 3: reads alone, then an answer.
        extra: { supervision: { phase: 3 } },
        script: { latency_ms: 0, student: [read('meeting-notes.md'), read('meeting-notes.md'), read('ideas.md'), { json: { decision_type: 'complete', output: 'Read.' } }] },
      },
    ];
    const recorded: unknown[] = [];
    for (const [i, run] of runs.entries()) {
      const events: RunEvent[] = [];
      const result = await engine.runAgent({ spec: spec(run.extra), specDir: dir, workspace, script: run.script, runId: `run-events-unchanged-${i}`, ledger: engine.createMemoryLedger(), onEvent: (e: RunEvent) => events.push(e) });
      recorded.push({ status: result.status, events: normalise(events, workspace) });
    }
    return recorded;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const VARYING = new Set(['ts', 'duration_ms', 'latency_ms', 'started_at', 'finished_at', 'pid']);

function normalise(events: RunEvent[], workspace: string): unknown[] {
  const hashes = new Map<string, string>();
  const text = JSON.stringify(events).split(workspace).join('<workspace>');
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string' && value.length > 1000) return `<${value.length} characters, sha256 ${createHash('sha256').update(value).digest('hex').slice(0, 16)}>`;
    if (typeof value === 'string') return value.replace(/\b[0-9a-f]{64}\b/g, (hash) => hashes.get(hash) ?? (hashes.set(hash, `<hash ${hashes.size + 1}>`), `<hash ${hashes.size}>`));
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, VARYING.has(k) ? '<varies>' : walk(v)]));
    return value;
  };
  return walk(JSON.parse(text)) as unknown[];
}
