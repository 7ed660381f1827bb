import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { AgentSpec, type AgentSpecInput } from '@shared/contracts/spec';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runAgent } from './run-agent';
import { tempNotesWorkspace } from '../../test-support/workspace';

const require = createRequire(import.meta.url);
const everythingBin = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

/** A run whose student (the replay provider: the model boundary's test double) calls server-everything's sampling tool. */
type ServerInput = NonNullable<AgentSpecInput['servers']>[number];
type Scripted = NonNullable<NonNullable<AgentSpecInput['script']>['student']>;

async function run(server: Partial<ServerInput>, student: Scripted) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'sampling-agent',
    name: 'Sampling agent',
    instructions: 'Ask.',
    task: 'Have the server ask the model.',
    servers: [{ id: 'ev', command: process.execPath, args: [everythingBin], ...server }],
    tool_effects: { 'ev/trigger-sampling-request': { effect: 'read' } },
  });
  const events: RunEvent[] = [];
  const result = await runAgent({ spec, specDir: ws.dir, workspace: ws.workspace, script: { latency_ms: 0, student, teacher: [] }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
  return { result, events };
}

const askTheModel = { json: { decision_type: 'tool_call', tool_name: 'trigger-sampling-request', arguments: { prompt: 'Say hello', maxTokens: 50 } } };
const done = { json: { decision_type: 'complete', output: 'done' } };

describe('MCP sampling (real server-everything)', () => {
  it('is off unless the workflow lets the server sample: its sampling tool is not even offered', async () => {
    const { result, events } = await run({}, [askTheModel, done]);
    const offered = events.find((e): e is Extract<RunEvent, { type: 'tools.snapshot' }> => e.type === 'tools.snapshot')?.tools.map((t) => t.name) ?? [];
    expect(offered).toContain('echo');
    expect(offered).not.toContain('trigger-sampling-request');
    expect(result.executions).toEqual([]);
  });

  it("with sampling: true, the server's request is answered by the run's student model and recorded as a model call", async () => {
    const { result, events } = await run({ sampling: true }, [askTheModel, { text: 'Hello from the run model' }, done]);
    expect(result.status).toBe('completed');
    expect(result.executions[0]?.content).toContain('Hello from the run model');
    const calls = events.filter((e): e is Extract<RunEvent, { type: 'model.called' }> => e.type === 'model.called');
    // propose, the server's sampling request, propose again.
    expect(calls.map((c) => `${c.caller}/${c.purpose}`)).toEqual(['student/propose', 'student/other', 'student/propose']);
  });
});
