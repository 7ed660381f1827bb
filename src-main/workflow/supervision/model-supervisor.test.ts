import { describe, expect, it } from 'vitest';
import type { ModelScriptInput } from '@shared/contracts/script';
import { ModelScript } from '@shared/contracts/script';
import { PRICING, settings } from '@shared/supervisor/testing/fixtures';
import type { SupervisorSettingsInput } from '@shared/supervisor/contracts';
import { SecretRegistry } from '../../credentials/secret-registry';
import type { ModelProvider, ModelRequest } from '../../providers/provider';
import { createScriptProvider } from '../../providers/script-provider';
import { createModelSupervisor } from './model-supervisor';
import { RunSupervision, type FailedInvocation } from './supervise-failure';
import type { InvocationRecord } from '../workflow-checkpoint';

/**
 * The model supervisor end to end through the kernel: the scripted provider (the replay double at
 * the model boundary, "scripted provider supervisor double" below) answers each step; the real
 * decision machine, the real secret registry, the real prompt and tool loop.
 */

const API_KEY = 'sk-live-7d1f0c9b2e4a48c3';

/** The scripted provider supervisor double: replays `teacher` entries and records every request it got. */
function scriptedProviderDouble(entries: ModelScriptInput['teacher']): { provider: ModelProvider; requests: ModelRequest[]; aborted: () => boolean[] } {
  const inner = createScriptProvider(ModelScript.parse({ teacher: entries }), 'teacher');
  const requests: ModelRequest[] = [];
  return {
    requests,
    aborted: () => requests.map((r) => r.signal?.aborted === true),
    provider: { ...inner, complete: (request) => (requests.push(request), inner.complete(request)) },
  };
}

const identity = { kind: 'model' as const, label: 'ollama:qwen3:4b', local: true };

function supervised(entries: ModelScriptInput['teacher'], opts: { settings?: SupervisorSettingsInput; records?: InvocationRecord[]; identity?: { kind: 'model'; label: string; local: boolean } } = {}) {
  const double = scriptedProviderDouble(entries);
  const s = settings({ who: { kind: 'model', model: { provider: 'script' }, decision_timeout_ms: 1000 }, ...opts.settings });
  const supervisor = createModelSupervisor({ provider: double.provider, identity: opts.identity ?? identity, settings: s });
  const secrets = new SecretRegistry();
  secrets.register('openai', API_KEY);
  supervisor.attach?.({ invocations: () => opts.records ?? [], secrets });
  const run = new RunSupervision({ settings: s, supervisor, secrets, validate: async () => ({ ok: true }), now: () => new Date('2026-12-01T10:00:00Z') });
  return { double, run };
}

function failed(overrides: Partial<FailedInvocation> = {}): FailedInvocation {
  return {
    invocation: { id: 'extract[each=1]', node: 'extract', lineage: [{ iterate: 'each', index: 1 }], inputs: {} },
    failure: { code: 'assert_failed', message: 'item 1: expected an object' },
    attempt: 1,
    retry_safe: true,
    spent_usd: 0,
    created_assets: [],
    candidate_output: { value: '{"name": "Ada"' },
    validator_covers_output: true,
    streaming: false,
    emitted: false,
    ...overrides,
  };
}

const live = () => new AbortController().signal;
const verdictStep = (verdict: Record<string, unknown>) => ({ json: { step: 'verdict', verdict } });

describe('a model supervisor (scripted provider supervisor double)', () => {
  it.each([
    ['retry', {}, { kind: 'run_again' }],
    ['skip', {}, { kind: 'skip' }],
    ['substitute', { value: { value: '{"name": "Ada"}' } }, { kind: 'done', outputs: { value: '{"name": "Ada"}' } }],
    ['fail', {}, { kind: 'failed' }],
  ] as const)('its %s verdict, answered as a schema-bound step, is the one applied (decided_by agent)', async (action, extra, next) => {
    const { double, run } = supervised([verdictStep({ action, reason: 'because', ...extra })]);
    const result = await run.superviseFailure(failed(), live());
    expect(result.verdict).toMatchObject({ decided_by: 'agent', turns: 1, verdict: { action } });
    expect(result.next).toMatchObject(next);
    // The verdict schema sent with the call offers exactly the kernel's allowed set.
    const format = double.requests[0]?.format as { properties: { verdict: { properties: { action: { enum: string[] } } } } };
    expect(format.properties.verdict.properties.action.enum).toEqual(result.escalation.allowed_actions);
  });

  it('its end_stream verdict ends a streaming node (the only other action it is offered is fail)', async () => {
    const { double, run } = supervised([verdictStep({ action: 'end_stream', reason: 'keep what streamed' })]);
    const result = await run.superviseFailure(failed({ streaming: true }), live());
    expect(result.escalation.allowed_actions).toEqual(['end_stream', 'fail']);
    expect(result.verdict).toMatchObject({ decided_by: 'agent', verdict: { action: 'end_stream' } });
    expect(result.next.kind).toBe('end_stream');
    expect(double.requests).toHaveLength(1);
  });

  it('a verdict given as a native tool call is read the same way', async () => {
    const { run } = supervised([{ tool_calls: [{ name: 'verdict', arguments: { action: 'skip', reason: 'poisoned item' } }] }]);
    const result = await run.superviseFailure(failed(), live());
    expect(result.verdict).toMatchObject({ decided_by: 'agent', verdict: { action: 'skip', reason: 'poisoned item' } });
  });

  it.each([
    ['prose instead of JSON', { text: 'I think you should skip this one.' }],
    ['a verdict missing its reason', verdictStep({ action: 'skip' })],
    ['an action that does not exist', verdictStep({ action: 'ignore', reason: 'x' })],
    ['a step the schema does not have', { json: { step: 'delete_node', node: 'extract' } }],
  ])('a malformed answer (%s) is never guessed at: the kernel fails the node (decided_by kernel)', async (_what, entry) => {
    const { run } = supervised([entry]);
    const result = await run.superviseFailure(failed(), live());
    expect(result.verdict).toMatchObject({ decided_by: 'kernel', verdict: { action: 'fail' } });
    expect(result.next.kind).toBe('failed');
  });

  it('a verdict outside the allowed set is refused by the kernel even when the model ignores the schema', async () => {
    const { run } = supervised([verdictStep({ action: 'retry', reason: 'try again' })]);
    const result = await run.superviseFailure(failed({ retry_safe: false }), live());
    expect(result.escalation.allowed_actions).not.toContain('retry');
    expect(result.verdict).toMatchObject({ decided_by: 'kernel', verdict: { action: 'fail' } });
  });

  it('the decision timeout aborts the model call in flight, and the verdict is the default fail', async () => {
    const { double, run } = supervised([{ ...verdictStep({ action: 'skip', reason: 'late' }), delay_ms: 30_000 }]);
    const started = Date.now();
    const result = await run.superviseFailure(failed(), live());
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.verdict).toMatchObject({ decided_by: 'default', verdict: { action: 'fail', reason: 'the supervisor did not decide within 1000 ms' } });
    expect(double.aborted()).toEqual([true]);
  });

  it('reads a node output on its own item path through read_node_output, masked; a sibling item is refused; then decides', async () => {
    const records: InvocationRecord[] = [
      { id: 'fetch[each=1]', node: 'fetch', lineage: [{ iterate: 'each', index: 1 }], status: 'done', outputs: { text: `page with key ${API_KEY}`, api_key: 'hunter2-plain', max_tokens: 512 } },
      { id: 'other[each=0]', node: 'other', lineage: [{ iterate: 'each', index: 0 }], status: 'done', outputs: { text: 'sibling data' } },
      { id: 'in', node: 'in', lineage: [], status: 'done', outputs: { items: ['a', 'b'] } },
    ];
    const { double, run } = supervised(
      [
        { json: { step: 'read_node_output', node: 'fetch' } },
        { json: { step: 'read_node_output', node: 'other' } },
        { json: { step: 'get_run_state' } },
        verdictStep({ action: 'skip', reason: 'the page is empty' }),
      ],
      { records },
    );
    const result = await run.superviseFailure(failed(), live());
    expect(result.verdict).toMatchObject({ decided_by: 'agent', verdict: { action: 'skip' } });
    const prompts = double.requests.map((r) => r.messages.map((m) => m.content).join('\n'));
    expect(prompts).toHaveLength(4);
    const last = prompts[3] ?? '';
    expect(last).toContain('Result of read_node_output: {"invocation":"fetch[each=1]"');
    expect(last).toContain('••••(keychain:openai)');
    expect(last).toContain('"max_tokens":512');
    expect(last).toContain('other ran only for other items');
    expect(last).toContain('"id":"in"');
    for (const prompt of prompts) {
      expect(prompt).not.toContain(API_KEY);
      expect(prompt).not.toContain('hunter2-plain');
      expect(prompt).not.toContain('sibling data');
    }
  });

  it('a model that keeps calling tools gets no verdict: after 4 calls the kernel fails the node', async () => {
    const { double, run } = supervised(Array(6).fill({ json: { step: 'get_run_state' } }));
    const result = await run.superviseFailure(failed(), live());
    expect(double.requests).toHaveLength(4);
    expect(result.verdict).toMatchObject({ decided_by: 'kernel', verdict: { action: 'fail' } });
  });

  it('a priced cloud model is charged its reported tokens, or the whole reservation when it reported none', async () => {
    const cloud = { kind: 'model' as const, label: 'openai:gpt-test', local: false };
    const { run } = supervised([verdictStep({ action: 'skip', reason: 'x' })], { identity: cloud, settings: { pricing: PRICING, cost_cap_usd: 1 } });
    const result = await run.superviseFailure(failed(), live());
    // No usage from a replay: the worst case (estimated prompt at $1/M, 2,048 output tokens at $4/M).
    expect(result.verdict.cost_usd).toBeGreaterThan(2048 * 4e-6);
    expect(run.ledger.spent_usd).toBe(result.verdict.cost_usd);
  });
});
