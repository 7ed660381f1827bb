import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { OUTPUT_TOKEN_BOUNDS } from '@shared/contracts/output-bound';
import { AgentSpec } from '@shared/contracts/spec';
import { SupervisorSettings } from '@shared/supervisor/contracts';
import { WorkflowGraph } from '@shared/workflow/document';
import { startFakeOllama, type FakeChatRequest, type FakeChatResult, type FakeOllama } from '../../test-support/fake-ollama';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { SecretRegistry } from '../credentials/secret-registry';
import { runWorkflow } from '../workflow/run-workflow';
import { resolveSupervision } from '../workflow/supervision/resolve-supervision';
import { RunSupervision } from '../workflow/supervision/supervise-failure';
import { runAgent } from './run-agent';

/**
 * Issue 27: every model call carries its output bound, sent to the server (Ollama's
 * `options.num_predict`), never unset. Each role is driven through its real caller — the decision
 * boundary (student, teacher), SCS (committee, monitor), a pattern's llm judge, the workflow
 * supervisor — against the fake Ollama server (TEST DOUBLE at the model boundary), which records
 * what it was asked and answers by the schema it was given.
 */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

type Role = 'student' | 'teacher' | 'committee' | 'monitor' | 'judge' | 'supervisor';

/** Which caller asked, read from the schema it sent (each caller's is its own). */
function roleOf(request: FakeChatRequest): Role {
  const schema = JSON.stringify(request.format ?? {});
  if (schema.includes('phase_goal')) return 'committee';
  if (schema.includes('approve_plan')) return 'monitor';
  if (schema.includes('reason_codes')) return 'teacher';
  if (schema.includes('"approved"')) return 'judge';
  if (schema.includes('"step"')) return 'supervisor';
  return 'student';
}

/** Answers each caller with what lets the run go on, and notes its bound. */
function answering(seen: Map<Role, unknown[]>): (request: FakeChatRequest) => FakeChatResult {
  return (request) => {
    const role = roleOf(request);
    seen.set(role, [...(seen.get(role) ?? []), request.options?.num_predict]);
    const json = (value: unknown): FakeChatResult => ({ message: { content: JSON.stringify(value) } });
    switch (role) {
      case 'committee':
        return json({ phase_goal: 'Say hello', plan: ['Think', 'Say hello', 'Finish'], acceptance_criteria: ['hello was said'], allowed_tools: [], stop_conditions: [] });
      case 'monitor':
        return json({ decision: (seen.get('monitor') ?? []).length === 1 ? 'approve_plan' : 'finish_allowed', confidence: 0.9, evidence: [], reason: 'Fine.' });
      case 'teacher':
        return json({ verdict: 'accept', reason_codes: [], explanation: 'Fine.' });
      case 'judge':
        return json({ verdict: 'approved', evidence: ['poet#1'] });
      case 'supervisor':
        return json({ step: 'verdict', verdict: { action: 'fail', reason: 'cannot be fixed' } });
      case 'student':
        return json({ decision_type: 'complete', output: 'hello' });
    }
  };
}

async function fakeOllama(seen: Map<Role, unknown[]>): Promise<FakeOllama> {
  const fake = await startFakeOllama({ models: [{ name: 'student:1b' }, { name: 'teacher:8b' }], chat: answering(seen) });
  cleanups.push(() => fake.close());
  return fake;
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-bounds-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An agent under review of every decision (phase 2), with SCS gates: student, teacher, committee, monitor. */
async function agentRun(seen: Map<Role, unknown[]>): Promise<void> {
  const fake = await fakeOllama(seen);
  const spec = AgentSpec.parse({
    ...{ format: 'steward/v1', kind: 'agent', id: 'bounded', name: 'Bounded', instructions: 'Be brief.', task: 'Say hello.' },
    models: { student: { provider: 'ollama', model: 'student:1b', host: fake.url }, teacher: { provider: 'ollama', model: 'teacher:8b', host: fake.url } },
    supervision: { phase: 2 },
    scs: { mode: 'on', monitor_every: 10 },
  });
  const events: RunEvent[] = [];
  const result = await runAgent({ spec, specDir: tempDir(), ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
  expect(result.status, JSON.stringify(events.filter((e) => e.type === 'run.finished'))).toBe('completed');
}

/** A pattern node whose output an llm judge approves. */
async function judgedRun(seen: Map<Role, unknown[]>): Promise<void> {
  const fake = await fakeOllama(seen);
  const graph = WorkflowGraph.parse({
    ...{ format: 'steward/v1', kind: 'workflow', id: 'judged', name: 'Judged' },
    nodes: [
      {
        id: 'p',
        kind: 'pattern',
        type: 'SUPERVISOR',
        task: 'Write a haiku.',
        members: [{ id: 'poet', role: 'poet', script: { student: [{ json: { decision_type: 'complete', output: 'Warm lines wait in RAM' } }] } }],
        judgment: { mode: 'post_step', callers: [{ kind: 'llm', profile: 'critic' }] },
        judge_models: { critic: { provider: 'ollama', model: 'teacher:8b', host: fake.url } },
      },
      { id: 'out', kind: 'output', fields: [{ name: 'poem', type: 'text' }] },
    ],
    edges: [{ from: { node: 'p', port: 'output' }, to: { node: 'out', port: 'poem' } }],
  });
  const result = await runWorkflow({ graph, specDir: tempDir(), inputs: {}, ledger: createMemoryLedger(), onEvent: () => undefined });
  expect(result.status).toBe('completed');
}

/** A workflow supervisor deciding one failure, its own max_output_tokens set. */
async function supervisorDecision(seen: Map<Role, unknown[]>): Promise<void> {
  const fake = await fakeOllama(seen);
  const graph = { supervisor: SupervisorSettings.parse({ enabled: true, who: { kind: 'model', model: { provider: 'ollama', model: 'teacher:8b', host: fake.url }, max_output_tokens: 700 } }) };
  const supervision = await resolveSupervision({ graph }, {});
  if (!supervision || 'unavailable' in supervision.supervisor) throw new Error('expected a model supervisor');
  const run = new RunSupervision({ settings: supervision.settings, supervisor: supervision.supervisor, secrets: new SecretRegistry(), validate: async () => ({ ok: true }) });
  const result = await run.superviseFailure(
    {
      invocation: { id: 'fetch', node: 'fetch', lineage: [], inputs: {} },
      failure: { code: 'tool_error', message: 'HTTP 500' },
      attempt: 1,
      retry_safe: false,
      spent_usd: 0,
      created_assets: [],
      validator_covers_output: false,
      streaming: false,
      emitted: false,
    },
    new AbortController().signal,
  );
  expect(result.verdict.decided_by).toBe('agent');
}

describe('every model call carries its output bound (fake Ollama server: options.num_predict)', () => {
  const seen = new Map<Role, unknown[]>();

  it('runs each role through its real caller', async () => {
    await agentRun(seen);
    await judgedRun(seen);
    await supervisorDecision(seen);
  }, 60_000);

  it.each([
    ['student', OUTPUT_TOKEN_BOUNDS.student],
    ['teacher', OUTPUT_TOKEN_BOUNDS.teacher],
    ['committee', OUTPUT_TOKEN_BOUNDS.committee],
    ['monitor', OUTPUT_TOKEN_BOUNDS.monitor],
    ['judge', OUTPUT_TOKEN_BOUNDS.judge],
    ['supervisor', 700],
  ] as const)('%s: every request asks for at most %i output tokens', (role, bound) => {
    const bounds = seen.get(role) ?? [];
    expect(bounds.length).toBeGreaterThan(0);
    expect(new Set(bounds)).toEqual(new Set([bound]));
  });
});
