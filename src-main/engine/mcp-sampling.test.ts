import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { AgentSpec, type AgentSpecInput } from '@shared/contracts/spec';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runAgent } from './run-agent';
import type { ReviewSample, SamplingReview } from '../mcp/reviewed-sampling';
import { reviewSampleAt } from '../shells/cli/review-sample-at-terminal';
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

async function run(server: Partial<ServerInput>, student: Scripted, extra: { onReviewSample?: ReviewSample } = {}) {
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
  const result = await runAgent({ spec, specDir: ws.dir, workspace: ws.workspace, script: { latency_ms: 0, student, teacher: [] }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), ...extra });
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

const samplingCalls = (events: RunEvent[]) => events.filter((e) => e.type === 'model.called' && e.purpose === 'other');

describe('sampling: "ask" — a person reviews a server\'s model request first (real server-everything)', () => {
  it('allowed, the person saw the conversation, its length and the model; the run\'s model answers, and the person sees that answer before the server gets it', async () => {
    const seen: SamplingReview[] = [];
    const { result, events } = await run({ sampling: 'ask' }, [askTheModel, { text: 'Hello from the run model' }, done], {
      onReviewSample: async (ask) => {
        seen.push(ask);
        return 'allow';
      },
    });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({ server: 'ev', max_tokens: 50, model: 'replay' });
    expect(seen[0]?.reply).toBeUndefined();
    expect(JSON.stringify(seen[0]?.messages)).toContain('Say hello');
    expect(seen[1]).toMatchObject({ server: 'ev', model: 'replay', reply: 'Hello from the run model' });
    expect(result.executions[0]?.content).toContain('Hello from the run model');
    expect(samplingCalls(events)).toHaveLength(1);
  });

  it('allowed, then the answer withheld: the model was called once, and the server gets an error instead of the answer', async () => {
    const { result, events } = await run({ sampling: 'ask' }, [askTheModel, { text: 'Hello from the run model' }, done], { onReviewSample: async (ask) => (ask.reply === undefined ? 'allow' : 'deny') });
    expect(result.status).toBe('completed');
    expect(result.executions[0]?.content).toMatch(/did not let the model's answer go back to the server/);
    expect(result.executions[0]?.content).not.toContain('Hello from the run model');
    expect(samplingCalls(events)).toHaveLength(1);
  });

  it('denied, the server gets "the person declined" and no model is called for it', async () => {
    const { result, events } = await run({ sampling: 'ask' }, [askTheModel, done], { onReviewSample: async () => 'deny' });
    expect(result.status).toBe('completed');
    expect(result.executions[0]?.content).toMatch(/the person declined/);
    expect(samplingCalls(events)).toHaveLength(0);
  });

  it('with nobody to ask, the request is denied saying so', async () => {
    const { result, events } = await run({ sampling: 'ask' }, [askTheModel, done]);
    expect(result.executions[0]?.content).toMatch(/nobody could be asked/);
    expect(samplingCalls(events)).toHaveLength(0);
  });
});

describe('sampling: "ask" at the terminal (typed lines are the test stand-in for the person)', () => {
  const review = { server: 'ev', model: 'replay', max_tokens: 50, messages: [{ role: 'user' as const, content: 'Say hello' }] };

  it('shows who asks, the model, the length and the conversation, then takes yes or no', async () => {
    const shown: string[] = [];
    const answers = ['maybe', 'yes'];
    const verdict = await reviewSampleAt({ stderr: (t) => void shown.push(t), line: async (q) => (shown.push(q), answers.shift()) }, false)(review);
    expect(verdict).toBe('allow');
    expect(shown.join('')).toContain('MCP server "ev" wants replay to answer this (at most 50 tokens)');
    expect(shown.join('')).toContain('user: Say hello');
    expect(await reviewSampleAt({ stderr: () => undefined, line: async () => 'no' }, false)(review)).toBe('deny');
  });

  it('then shows the model\'s answer and asks whether it goes back to the server', async () => {
    const shown: string[] = [];
    const verdict = await reviewSampleAt({ stderr: (t) => void shown.push(t), line: async (q) => (shown.push(q), 'n') }, false)({ ...review, reply: 'Hello there' });
    expect(verdict).toBe('deny');
    expect(shown.join('')).toContain('replay answered MCP server "ev":\n  Hello there');
    expect(shown.join('')).toContain('Send this answer to the server? (yes / no)');
  });

  it('without a terminal the request is denied with a line saying why', async () => {
    const shown: string[] = [];
    expect(await reviewSampleAt({ stderr: (t) => void shown.push(t) }, false)(review)).toBe('deny');
    expect(shown.join('')).toMatch(/denied: sampling for it is "ask" and there is no terminal to ask you/);
  });
});
