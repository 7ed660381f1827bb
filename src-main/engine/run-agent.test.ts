import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import { RunResult } from '@shared/contracts/run-result';
import type { AgentSpecInput, AgentSpec } from '@shared/contracts/spec';
import { AgentSpec as AgentSpecSchema } from '@shared/contracts/spec';
import { ModelScript } from '@shared/contracts/script';
import { createMemoryLedger, openFileLedger } from '../mcp/idempotency-ledger';
import { loadSpecFile } from '../spec/load-spec';
import { runAgent, type AgentRun } from './run-agent';
import type { ModelProvider, ModelRequest } from '../providers/provider';
import { resolveProvider } from '../providers/resolve-provider';
import { EXAMPLES, tempNotesWorkspace } from '../../test-support/workspace';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function workspace() {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  return ws;
}

function fsServer(tools?: string[]): AgentSpecInput['servers'] {
  return [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], ...(tools ? { tools } : {}) }];
}

function spec(overrides: Partial<AgentSpecInput>): AgentSpec {
  return AgentSpecSchema.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'test-agent',
    name: 'Test agent',
    instructions: 'Work in ${workspace}.',
    task: 'Do the task.',
    workspace: 'notes-sandbox',
    servers: fsServer(),
    ...overrides,
  });
}

async function run(s: AgentSpec, ws: { dir: string; workspace: string }, script: Partial<ModelScript>, extra: Partial<Parameters<typeof runAgent>[0]> = {}) {
  const events: RunEvent[] = [];
  const result = await runAgent({
    spec: s,
    specDir: ws.dir,
    workspace: ws.workspace,
    script: { latency_ms: 0, student: [], teacher: [], ...script },
    ledger: createMemoryLedger(),
    onEvent: (e) => events.push(e),
    ...extra,
  });
  return { result, events };
}

function expectCompleteTrace(result: AgentRun, events: RunEvent[]) {
  for (const e of events) expect(RunEvent.safeParse(e).success, `${e.type} validates`).toBe(true);
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  const finished = events.at(-1);
  expect(finished?.type).toBe('run.finished');
  expect(finished?.type === 'run.finished' && finished.event_count).toBe(events.length);
  expect(result.event_count).toBe(events.length);
  const { setup_error: _s, checkpoint: _c, ...plain } = result;
  expect(RunResult.safeParse(plain).success).toBe(true);
  // I6: every round ends in exactly one outcome, recorded once.
  const completed = events.filter((e) => e.type === 'round.completed');
  expect(completed.map((e) => e.type === 'round.completed' && e.record.round)).toEqual(result.rounds.map((r) => r.round));
}

describe('the agent run through the decision boundary (real filesystem MCP server)', () => {
  it('runs the demo: a read passes unreviewed and the teacher replacement, not the student write, reaches the disk', async () => {
    const ws = workspace();
    const loaded = loadSpecFile(join(EXAMPLES, 'notes-assistant.json'));
    const before = readFileSync(join(ws.workspace, 'meeting-notes.md'), 'utf8');
    const { result, events } = await run(loaded.spec, ws, { ...loaded.script, latency_ms: 0 });

    expect(result.status).toBe('completed');
    expect(result.output).toContain('summary.md');
    expectCompleteTrace(result, events);

    const [list, read, write, done] = result.rounds;
    expect(list?.review).toEqual({ required: false, rule: 'not_required' });
    expect(list?.outcome).toBe('executed');
    expect(read?.outcome).toBe('executed');
    expect(write?.review).toEqual({ required: true, rule: 'protected_effect' });
    expect(write?.verdicts.at(-1)?.verdict?.verdict).toBe('replace');
    expect(write?.selected?.source).toBe('teacher');
    expect(done?.outcome).toBe('delivered');
    // The answer follows a replaced write: the teacher checked it against what ran (issue 10).
    expect(done?.review).toEqual({ required: true, rule: 'after_refusal' });
    expect(done?.verdict?.verdict).toBe('accept');

    // The disk shows the replacement; the original notes are untouched.
    expect(readFileSync(join(ws.workspace, 'meeting-notes.md'), 'utf8')).toBe(before);
    expect(readFileSync(join(ws.workspace, 'summary.md'), 'utf8')).toContain('## Action items');

    // I1: canonical history and executions only ever hold the selected decision.
    const writes = result.history.filter((h) => h.decision.decision_type === 'tool_call' && h.decision.tool_name === 'write_file');
    expect(writes).toHaveLength(1);
    expect(JSON.stringify(result.history)).not.toContain('meeting-notes.md","content"');
    expect(result.executions.map((e) => e.tool)).toEqual(['list_directory', 'read_text_file', 'write_file']);
    expect(result.executions[2]?.arguments.path).toBe(join(ws.workspace, 'summary.md'));

    // The reviewed rounds (the replaced write, the checked answer) are learning data.
    const learning = events.filter((e) => e.type === 'learning.example');
    expect(learning.map((e) => e.type === 'learning.example' && e.round)).toEqual([write?.round, done?.round]);
  });

  it('a write the teacher blocks never reaches the disk', async () => {
    const ws = workspace();
    const target = join(ws.workspace, 'blocked.md');
    const { result, events } = await run(spec({}), ws, {
      student: [{ json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: target, content: 'x' } } }],
      teacher: [{ json: { verdict: 'block', reason_codes: ['unsafe_effect'], explanation: 'Not wanted.' } }],
    });
    expect(result.status).toBe('blocked');
    expect(result.rounds[0]?.reason).toBe('verdict_block');
    expect(existsSync(target)).toBe(false);
    expect(result.executions).toEqual([]);
    expect(result.history).toEqual([]);
    expectCompleteTrace(result, events);
  });

  it('with supervision off a protected write is blocked, never executed unreviewed', async () => {
    const ws = workspace();
    const target = join(ws.workspace, 'unreviewed.md');
    const { result } = await run(spec({ supervision: { enabled: false } }), ws, {
      student: [{ json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: target, content: 'x' } } }],
    });
    expect(result.status).toBe('blocked');
    expect(result.rounds[0]?.reason).toBe('protected_unreviewed');
    expect(existsSync(target)).toBe(false);
  });

  it('malformed student output is reported, fed back to the student, and the run goes on', async () => {
    const ws = workspace();
    const { result, events } = await run(spec({ supervision: { rules: { validation_failed: false }, max_repair_rounds: 0 } }), ws, {
      student: [{ text: 'Sure, I will summarise it!' }, { json: { decision_type: 'complete', output: 'done' } }],
    });
    expect(result.status).toBe('completed');
    expect(result.rounds[0]?.outcome).toBe('failed');
    expect(result.rounds[0]?.validation?.issues[0]?.code).toBe('unparseable');
    expect(result.rounds[0]?.message).toMatch(/the model (answered in prose|'s JSON is malformed)/);
    expectCompleteTrace(result, events);
  });

  it('repeated invalid output fails the run after max_consecutive_failures with the last reason', async () => {
    const ws = workspace();
    const { result } = await run(spec({ supervision: { rules: { validation_failed: false }, max_repair_rounds: 0 }, limits: { max_consecutive_failures: 2 } }), ws, {
      student: [
        { json: { decision_type: 'tool_call', tool_name: 'delete_everything', arguments: {} } },
        { json: { decision_type: 'tool_call', tool_name: 'delete_everything', arguments: {} } },
      ],
    });
    expect(result.status).toBe('failed');
    expect(result.message).toMatch(/2 failed rounds in a row.*not offered/);
  });

  it('sensitive arguments are masked in every event, execution record and prompt, while the tool still gets them', async () => {
    const ws = workspace();
    const planted = 'PLANTED-SECRET-7f3a9c';
    const target = join(ws.workspace, 'secret.md');
    const script = ModelScript.parse({
      student: [
        { json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: target, content: planted } } },
        { json: { decision_type: 'complete', output: 'saved' } },
      ],
      teacher: [
        { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } },
        { json: { verdict: 'accept', reason_codes: [], explanation: 'Done.' } },
      ],
    });
    // The model boundary's double records every prompt: the teacher reviews the write, then the finish.
    const sent: ModelRequest[] = [];
    const recording = (role: 'student' | 'teacher'): ModelProvider => {
      const inner = resolveProvider({ provider: 'script' }, role, { script });
      return { label: inner.label, complete: (request) => (sent.push(request), inner.complete(request)) };
    };
    const { result, events } = await run(
      spec({ supervision: { phase: 2 }, tool_effects: { 'fs/write_file': { effect: 'reversible_write', sensitive_arguments: ['content'] } } }),
      ws,
      {},
      { providers: { student: recording('student'), teacher: recording('teacher') } },
    );
    expect(sent.length).toBe(4);
    expect(JSON.stringify(sent.map((r) => r.messages))).not.toContain(planted);
    expect(result.status).toBe('completed');
    expect(readFileSync(target, 'utf8')).toBe(planted);
    expect(JSON.stringify(events)).not.toContain(planted);
    expect(JSON.stringify(result.executions)).not.toContain(planted);
    expect(JSON.stringify(result.rounds)).not.toContain(planted);
    expect(JSON.stringify(result.history)).not.toContain(planted);
  });

  it('the same idempotency key never executes twice when a run is replayed with the same ledger', async () => {
    const ws = workspace();
    const ledger = openFileLedger(join(ws.dir, 'ledger.jsonl'));
    const target = join(ws.workspace, 'once.md');
    const script: Partial<ModelScript> = {
      student: [
        { json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: target, content: 'first' } } },
        { json: { decision_type: 'complete', output: 'ok' } },
      ],
      teacher: [{ json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } }],
    };
    const first = await run(spec({}), ws, script, { runId: 'run-replayed-0001', ledger });
    expect(first.result.status).toBe('completed');
    const replay = await run(spec({}), ws, script, { runId: 'run-replayed-0001', ledger: openFileLedger(join(ws.dir, 'ledger.jsonl')) });
    expect(replay.result.status).toBe('blocked');
    expect(replay.result.rounds[0]?.reason).toBe('duplicate_execution');
    expect(replay.result.executions).toEqual([]);
  });

  it('cancelling mid-round ends the run cancelled, executes nothing more, and still records run.finished', async () => {
    const ws = workspace();
    const controller = new AbortController();
    const events: RunEvent[] = [];
    const pending = runAgent({
      spec: spec({}),
      specDir: ws.dir,
      workspace: ws.workspace,
      script: { latency_ms: 0, student: [{ json: { decision_type: 'complete', output: 'late' }, delay_ms: 30_000 }], teacher: [] },
      ledger: createMemoryLedger(),
      signal: controller.signal,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'round.started') controller.abort();
      },
    });
    const result = await pending;
    expect(result.status).toBe('cancelled');
    expect(result.rounds[0]?.outcome).toBe('failed');
    expect(result.rounds[0]?.reason).toBe('cancelled');
    expect(events.at(-1)?.type).toBe('run.finished');
  });

  it('a server that will not start is a setup error with one clear message', async () => {
    const ws = workspace();
    const { result, events } = await run(spec({ servers: [{ id: 'broken', command: join(ws.dir, 'no-such-server') }] }), ws, {});
    expect(result.status).toBe('failed');
    expect(result.setup_error).toMatch(/MCP server "broken" did not start/);
    expect(events.map((e) => e.type)).toEqual(['run.started', 'run.finished']);
  });

  it('an unreachable Ollama fails the run before round 1 with an actionable message, not an exception', async () => {
    const ws = workspace();
    const { result, events } = await run(
      spec({ models: { student: { provider: 'ollama', model: 'qwen3:4b', host: 'http://127.0.0.1:9' }, teacher: { provider: 'script' } }, limits: { max_consecutive_failures: 1 } }),
      ws,
      {},
    );
    expect(result.status).toBe('failed');
    expect(result.rounds).toHaveLength(0);
    expect(result.message).toMatch(/ollama:qwen3:4b is not reachable: nothing answers at http:\/\/127\.0\.0\.1:9/);
    expectCompleteTrace(result, events);
  });

  it('a server that crashes mid-call fails that round with a clear message, then the run stops cleanly', async () => {
    const ws = workspace();
    const crashing = fileURLToPath(new URL('../../test-support/crashing-mcp-server.mjs', import.meta.url));
    const { result, events } = await run(
      spec({
        servers: [{ id: 'flaky', command: process.execPath, args: [crashing] }],
        tool_effects: { 'flaky/ping': { effect: 'read' }, 'flaky/crash': { effect: 'read' } },
      }),
      ws,
      {
        student: [
          { json: { decision_type: 'tool_call', tool_name: 'ping', arguments: {} } },
          { json: { decision_type: 'tool_call', tool_name: 'crash', arguments: {} } },
          { json: { decision_type: 'complete', output: 'never reached' } },
        ],
      },
    );
    expect(result.rounds[0]?.outcome).toBe('executed');
    expect(result.rounds[1]?.outcome).toBe('failed');
    expect(result.rounds[1]?.reason).toBe('tool_error');
    expect(result.rounds[1]?.message).toMatch(/flaky/);
    expect(result.executions[1]).toMatchObject({ tool: 'crash', ok: false });
    expect(result.status).toBe('failed');
    expect(result.message).toMatch(/could not list tools for round 3: .*flaky/);
    expectCompleteTrace(result, events);
  });
});
