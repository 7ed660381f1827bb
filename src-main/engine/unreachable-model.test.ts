import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import type { ModelScriptInput } from '@shared/contracts/script';
import { AgentSpec, type AgentSpecInput } from '@shared/contracts/spec';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { closedPort } from '../../test-support/closed-port';
import { startFakeOllama } from '../../test-support/fake-ollama';
import { startFakeOpenAI } from '../../test-support/fake-openai';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { runAgent } from './run-agent';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const complete = (output: string) => ({ json: { decision_type: 'complete' as const, output } });

async function run(overrides: Partial<AgentSpecInput>, script: Partial<ModelScriptInput> = {}) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'reach',
    name: 'Reach',
    instructions: 'Work in ${workspace}.',
    task: 'Do the task.',
    workspace: 'notes-sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'] }],
    ...overrides,
  });
  const events: RunEvent[] = [];
  const result = await runAgent({
    spec,
    specDir: ws.dir,
    workspace: ws.workspace,
    script: { latency_ms: 0, student: [], teacher: [], ...script },
    ledger: createMemoryLedger(),
    onEvent: (e) => events.push(e),
    retry: { sleep: async () => undefined },
  });
  return { result, events };
}

describe('a run whose model cannot be reached stops before round 1, with one message', () => {
  it('an Ollama nobody listens on: no round, no tool server started, one message naming the model, the address and what to do', async () => {
    const port = await closedPort();
    const { result, events } = await run({ models: { student: { provider: 'ollama', model: 'qwen3:4b', host: `http://127.0.0.1:${port}` }, teacher: { provider: 'script' } } });
    expect(result.status).toBe('failed');
    expect(result.rounds).toHaveLength(0);
    expect(events.map((e) => e.type)).toEqual(['run.started', 'run.finished']);
    expect(result.message).toContain('student model ollama:qwen3:4b');
    expect(result.message).toContain(`http://127.0.0.1:${port}`);
    expect(result.message).toContain('ollama serve');
    expect(result.setup_error).toBe(result.message);
    const finished = events.at(-1);
    expect(finished?.type === 'run.finished' && finished.message).toBe(result.message);
  });

  it('an OpenAI-compatible server nobody listens on: the message shows its address without the query', async () => {
    const port = await closedPort();
    const { result } = await run({
      models: { student: { provider: 'openai_compatible', model: 'm', base_url: `http://127.0.0.1:${port}/v1?api-version=sekret-2024` }, teacher: { provider: 'script' } },
    });
    expect(result.status).toBe('failed');
    expect(result.rounds).toHaveLength(0);
    expect(result.message).toContain(`student model 127.0.0.1:${port}:m`);
    expect(result.message).toContain(`http://127.0.0.1:${port}/v1`);
    expect(result.message).not.toContain('sekret');
    expect(result.message).toMatch(/start the server|check/);
  });

  it('a reviewing teacher nobody listens on stops the run before the student is asked', async () => {
    const port = await closedPort();
    const { result, events } = await run(
      {
        models: { student: { provider: 'script' }, teacher: { provider: 'ollama', model: 'qwen3:8b', host: `http://127.0.0.1:${port}` } },
        supervision: { enabled: true, phase: 2 },
      },
      { student: [complete('done')] },
    );
    expect(result.status).toBe('failed');
    expect(result.rounds).toHaveLength(0);
    expect(events.some((e) => e.type === 'model.called')).toBe(false);
    expect(result.message).toContain('teacher model ollama:qwen3:8b');
    expect(result.message).toContain(`http://127.0.0.1:${port}`);
  });

  it('a teacher the run never calls (supervision off) is not checked: the run completes', async () => {
    const port = await closedPort();
    const { result } = await run(
      { models: { student: { provider: 'script' }, teacher: { provider: 'ollama', model: 'qwen3:8b', host: `http://127.0.0.1:${port}` } }, supervision: { enabled: false } },
      { student: [complete('done')] },
    );
    expect(result.status).toBe('completed');
  });

  it('a reachable Ollama that lacks the model keeps the call-time message: one round, then `ollama pull`', async () => {
    const server = await startFakeOllama({ models: [{ name: 'other:1b' }], chat: () => ({ message: { content: '{}' } }) });
    cleanups.push(() => server.close());
    const { result } = await run({ models: { student: { provider: 'ollama', model: 'qwen3:4b', host: server.url }, teacher: { provider: 'script' } }, supervision: { enabled: false } });
    expect(result.status).toBe('failed');
    expect(result.rounds).toHaveLength(1);
    expect(result.message).toContain('ollama pull qwen3:4b');
  });

  it('a reachable OpenAI-compatible server runs as before: the check is one GET /models, without the key', async () => {
    const server = await startFakeOpenAI({ chat: () => ({ message: { content: JSON.stringify({ decision_type: 'complete', output: 'hi' }) } }) });
    cleanups.push(() => server.close());
    const { result } = await run({ models: { student: { provider: 'openai_compatible', model: 'm', base_url: server.baseUrl }, teacher: { provider: 'script' } } });
    expect(result.status).toBe('completed');
    const probes = server.requests.filter((r) => r.path === '/v1/models');
    expect(probes).toHaveLength(1);
    expect(probes[0]?.authorization).toBeUndefined();
  });
});
