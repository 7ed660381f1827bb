import { describe, expect, it } from 'vitest';
import type { ModelScriptInput } from '@shared/contracts/script';
import { ModelScript } from '@shared/contracts/script';
import { PRICING, settings } from '@shared/supervisor/testing/fixtures';
import type { SupervisorSettingsInput } from '@shared/supervisor/contracts';
import { SecretRegistry } from '../../credentials/secret-registry';
import type { ModelProvider, ModelRequest } from '../../providers/provider';
import { createScriptProvider } from '../../providers/script-provider';
import { createModelSupervisor } from './model-supervisor';
import { MEMORY_LINE_CHARS } from './model-supervisor-prompt';
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
    ['prose instead of JSON', { text: 'I think you should skip this one.' }, 'the answer is not a JSON object'],
    ['a verdict missing its reason', verdictStep({ action: 'skip' }), 'verdict.reason'],
    ['an action that does not exist', verdictStep({ action: 'ignore', reason: 'x' }), 'the verdict does not match the verdict schema'],
    ['a step the schema does not have', { json: { step: 'delete_node', node: 'extract' } }, 'the answer is no step of the schema'],
  ])('a malformed answer (%s) goes back into the open conversation as a tool error, and the repaired verdict is applied', async (_what, entry, problem) => {
    const { double, run } = supervised([entry, verdictStep({ action: 'skip', reason: 'repaired' })]);
    const result = await run.superviseFailure(failed(), live());
    expect(result.verdict).toMatchObject({ decided_by: 'agent', turns: 1, verdict: { action: 'skip', reason: 'repaired' } });
    expect(result.verdict.malformed).toBeUndefined();
    expect(double.requests).toHaveLength(2);
    // The same conversation, grown by the bad answer and the error on it (no fresh start).
    const [first, second] = double.requests.map((r) => r.messages);
    expect(second?.slice(0, first?.length)).toEqual(first);
    const error = second?.at(-1);
    expect(error?.role).toBe('tool');
    expect(error?.content).toMatch(/^Error: your answer could not be used: /);
    expect(error?.content).toContain(problem);
    expect(error?.content).toContain('skip');
    expect(second?.at(-2)?.role).toBe('assistant');
  });

  it('a model that stays malformed gets 3 repair rounds, then the node fails closed: in words, the last raw answer kept (masked) on the verdict', async () => {
    const prose = { text: `I would skip it, the key is ${API_KEY}` };
    const { double, run } = supervised([prose, prose, prose, prose, verdictStep({ action: 'skip', reason: 'too late' })]);
    const result = await run.superviseFailure(failed(), live());
    // One first answer and 3 repairs: the 5th scripted answer is never asked for.
    expect(double.requests).toHaveLength(4);
    expect(double.requests.every((r) => r.max_output_tokens === 2048)).toBe(true);
    expect(result.verdict).toMatchObject({
      decided_by: 'kernel',
      turns: 1,
      verdict: { action: 'fail', reason: 'the supervisor gave no usable verdict in 4 answers (3 repair rounds), so the node fails as it would have without supervision' },
      malformed: { problem: 'the answer is not a JSON object', repairs: 3, answer: 'I would skip it, the key is ••••(keychain:openai)' },
    });
    expect(JSON.stringify(result)).not.toContain(API_KEY);
    expect(result.next.kind).toBe('failed');
    // The kernel decided, not the supervisor: nothing sticks for the next item with the same failure.
    expect(run.ledger.sticky).toEqual({});
  });

  it('a verdict outside the allowed set is repaired like a malformed one; one that stays outside is refused by the kernel', async () => {
    const outside = verdictStep({ action: 'retry', reason: 'try again' });
    const repaired = supervised([outside, verdictStep({ action: 'skip', reason: 'poisoned item' })]);
    const ok = await repaired.run.superviseFailure(failed({ retry_safe: false }), live());
    expect(ok.escalation.allowed_actions).not.toContain('retry');
    expect(ok.verdict).toMatchObject({ decided_by: 'agent', verdict: { action: 'skip' } });
    expect(repaired.double.requests[1]?.messages.at(-1)?.content).toContain('the action "retry" is not allowed here (allowed: skip, substitute, fail)');

    const { double, run } = supervised(Array(4).fill(outside));
    const result = await run.superviseFailure(failed({ retry_safe: false }), live());
    expect(double.requests).toHaveLength(4);
    expect(result.verdict).toMatchObject({ decided_by: 'kernel', verdict: { action: 'fail' }, malformed: { repairs: 3, answer: expect.stringContaining('"action":"retry"') } });
  });

  it('repair calls are reserved against the cost cap like any call: the cap stops the repairs, never crossed', async () => {
    const cloud = { kind: 'model' as const, label: 'openai:gpt-test', local: false };
    // Room for about two worst-case calls ($0.0082 output each at 2,048 tokens × $4/M, plus the prompt).
    const { double, run } = supervised(Array(4).fill({ text: 'not json' }), { identity: cloud, settings: { pricing: PRICING, cost_cap_usd: 0.02 } });
    const result = await run.superviseFailure(failed(), live());
    expect(double.requests.length).toBeGreaterThanOrEqual(1);
    expect(double.requests.length).toBeLessThan(4);
    expect(result.verdict).toMatchObject({ decided_by: 'default', verdict: { action: 'fail', reason: expect.stringContaining('cap') } });
    expect(run.ledger.spent_usd).toBeLessThanOrEqual(0.02);
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
    expect(result.verdict).toMatchObject({ decided_by: 'kernel', verdict: { action: 'fail' }, malformed: { problem: 'no verdict within 4 steps: it kept calling tools', repairs: 0 } });
  });

  it('remembers its earlier decisions of this run in its prompt, with their one-line rationales: the last 20, each line bounded, over a long run', async () => {
    const long = 'because '.repeat(100);
    const decisions = 45;
    const entries = Array.from({ length: decisions + 1 }, (_, i) => verdictStep({ action: i % 3 === 0 ? 'fail' : 'skip', reason: `R${i} ${i === 7 ? long : 'poisoned'}` }));
    const { double, run } = supervised(entries, { settings: { max_decisions: 100 } });
    // Generic tool errors have no signature: nothing is sticky, so the supervisor is asked every time.
    for (let i = 0; i <= decisions; i++) await run.superviseFailure(failed({ invocation: { id: `extract[each=${i}]`, node: 'extract', lineage: [{ iterate: 'each', index: i }], inputs: {} }, failure: { code: 'tool_error', message: `item ${i} failed` } }), live());
    expect(double.requests).toHaveLength(decisions + 1);

    const promptOf = (n: number) => double.requests[n]?.messages.map((m) => m.content).join('\n') ?? '';
    expect(promptOf(0)).not.toContain('Your earlier decisions');
    expect(promptOf(1)).toContain('Your earlier decisions in this run (oldest first');
    expect(promptOf(1)).toContain('- extract[each=0] → fail: R0 poisoned');

    const last = promptOf(decisions);
    const lines = last.split('\n').filter((l) => l.startsWith('- extract[each='));
    expect(lines).toHaveLength(20);
    expect(lines[0]).toBe(`- extract[each=${decisions - 20}] → skip: R${decisions - 20} poisoned`);
    expect(lines[19]).toBe(`- extract[each=${decisions - 1}] → skip: R${decisions - 1} poisoned`);
    expect(last).not.toContain('R0 ');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(MEMORY_LINE_CHARS);
    // The long rationale was cut to one bounded line when it was remembered.
    const seventh = promptOf(8).split('\n').find((l) => l.startsWith('- extract[each=7]')) ?? '';
    expect(seventh.length).toBeLessThanOrEqual(MEMORY_LINE_CHARS);
    expect(seventh.endsWith('…')).toBe(true);
    // However long the run, the prompt is as long as 20 remembered lines make it.
    expect(last.length - promptOf(0).length).toBeLessThan(20 * MEMORY_LINE_CHARS + 200);
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
