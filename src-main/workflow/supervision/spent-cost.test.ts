import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, type RunEventOf } from '@shared/contracts/events';
import type { ModelRefInput } from '@shared/contracts/model';
import { LOCAL, settings, VERDICTS } from '@shared/supervisor/testing/fixtures';
import { ScriptedSupervisorDouble } from '@shared/supervisor/testing/scripted-supervisor';
import { WorkflowGraph } from '@shared/workflow/document';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { createMemoryLedger } from '../../mcp/idempotency-ledger';
import type { ModelProvider } from '../../providers/provider';
import { runWorkflow } from '../run-workflow';

/**
 * An escalation's spent cost (issue 11): the failed agent attempt's model calls, the tokens the
 * provider reported at the supervisor's pricing table. Real scheduler and agent engine; the
 * scripted provider double stands at the model boundary (it reports token usage under the model's
 * label, as the OpenAI-compatible provider does), the scripted supervisor double at the supervisor's.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const REMOTE: ModelRefInput = { provider: 'openai_compatible', base_url: 'https://api.example.com/v1', model: 'gpt-x' };
const REMOTE_LABEL = 'api.example.com:gpt-x';
const PRICE = { input_per_mtok_usd: 2, output_per_mtok_usd: 8 };
const USAGE = { input_tokens: 1200, output_tokens: 300 };

/** The scripted provider double: every call answers a tool call the node has no tool for, and reports USAGE under `label`. */
function scriptedProvider(label: string): ModelProvider {
  return {
    label,
    complete: () => Promise.resolve({ text: JSON.stringify({ decision_type: 'tool_call', tool_name: 'no_such_tool', arguments: {} }), tool_calls: [], model: label, usage: USAGE }),
  };
}

/** One agent node with no tools (so it is retry-safe by its effects) that runs out of its one round. */
function agentGraph(model: ModelRefInput): WorkflowGraph {
  const id = 'priced-agent';
  return WorkflowGraph.parse({
    ...{ format: 'steward/v1', kind: 'workflow', id, name: id },
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'topic', type: 'text' }] },
      { id: 'agent', kind: 'agent', instructions: 'Answer.', task: 'Say something about {{topic}}.', inputs: [{ name: 'topic', type: 'text' }], limits: { max_rounds: 1 }, models: { student: model, teacher: model } },
      { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'topic' }, to: { node: 'agent', port: 'topic' } },
      { from: { node: 'agent', port: 'output' }, to: { node: 'out', port: 'said' } },
    ],
  });
}

async function runSupervised(model: ModelRefInput, provider: ModelProvider, pricing: Record<string, typeof PRICE>) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.retry }, { verdict: VERDICTS.fail }]);
  const events: RunEvent[] = [];
  const result = await runWorkflow({
    graph: agentGraph(model),
    specDir: ws.dir,
    workspace: ws.workspace,
    inputs: { topic: 'tea' },
    ledger: createMemoryLedger(),
    onEvent: (e) => events.push(e),
    providers: { student: provider, teacher: provider },
    privacy: { allowed_hosts: ['api.example.com'] },
    supervision: { settings: settings({ pricing }), supervisor: { identity: LOCAL, decide: (input, signal) => double.decide(input, signal) } },
  });
  for (const e of events) expect(RunEvent.safeParse(e).success).toBe(true);
  const calls = events.filter((e): e is RunEventOf<'model.called'> => e.type === 'model.called' && e.invocation_id === 'agent');
  return { result, events, double, calls };
}

describe("a failed agent node's spent cost", () => {
  it("is the tokens its remote model reported at the pricing table's price, and a retry is then refused: running it again would pay again", async () => {
    const { double, calls } = await runSupervised(REMOTE, scriptedProvider(REMOTE_LABEL), { [REMOTE_LABEL]: PRICE });

    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.model === REMOTE_LABEL && !c.local)).toBe(true);
    const expected = (calls.length * (USAGE.input_tokens * PRICE.input_per_mtok_usd + USAGE.output_tokens * PRICE.output_per_mtok_usd)) / 1_000_000;
    const escalation = double.calls[0]?.input.escalation;
    expect(escalation?.spent_usd).toBeCloseTo(expected, 12);
    expect(escalation).toMatchObject({ retry_safe: true });
    expect(escalation?.unpriced_models).toBeUndefined();
    expect(escalation?.allowed_actions).not.toContain('retry');
    // The supervisor double answered retry: outside the allowed set, the kernel fails the node instead.
    expect(double.calls).toHaveLength(1);
  }, 60_000);

  it('is unpriced, not 0, for a remote model the table has no price for, and a retry is refused as well', async () => {
    const { double } = await runSupervised(REMOTE, scriptedProvider(REMOTE_LABEL), {});

    const escalation = double.calls[0]?.input.escalation;
    expect(escalation).toMatchObject({ spent_usd: 0, unpriced_models: [REMOTE_LABEL], retry_safe: true });
    expect(escalation?.allowed_actions).not.toContain('retry');
  }, 60_000);

  it('is 0 for a local model whatever tokens it reported, so the retry-safe agent may be retried', async () => {
    const { double, calls } = await runSupervised({ provider: 'script' }, scriptedProvider('replay'), { replay: PRICE });

    expect(calls.length).toBeGreaterThan(0);
    expect(double.calls.map((c) => [c.input.escalation.attempt, c.input.escalation.spent_usd, c.input.escalation.allowed_actions.includes('retry')])).toEqual([
      [1, 0, true],
      // Attempt 2 failed the same way; max_retries (1) is used up.
      [2, 0, false],
    ]);
  }, 60_000);
});
