import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { WorkflowGraph } from '@shared/workflow/document';
import { startFakeOllama, type FakeOllama } from '../../../test-support/fake-ollama';
import { createMemoryLedger } from '../../mcp/idempotency-ledger';
import { runWorkflow } from '../run-workflow';

/**
 * An `llm` judge on a real provider: the Ollama provider against the fake Ollama server (TEST
 * DOUBLE at the model boundary), through the workflow run and the pattern executor.
 */

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const MODEL = 'judge:8b';

function judged(host: string): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'judged',
    name: 'Judged',
    nodes: [
      {
        id: 'p',
        kind: 'pattern',
        type: 'SUPERVISOR',
        task: 'Write a haiku about caches.',
        members: [{ id: 'poet', role: 'poet', script: { student: [{ json: { decision_type: 'complete', output: 'Warm lines wait in RAM' } }] } }],
        judgment: { mode: 'post_step', callers: [{ kind: 'llm', profile: 'critic' }] },
        judge_models: { critic: { provider: 'ollama', model: MODEL, host } },
      },
      { id: 'out', kind: 'output', fields: [{ name: 'poem', type: 'text' }] },
    ],
    edges: [{ from: { node: 'p', port: 'output' }, to: { node: 'out', port: 'poem' } }],
  });
}

async function run(graph: WorkflowGraph) {
  const dir = mkdtempSync(join(tmpdir(), 'steward-judge-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const events: RunEvent[] = [];
  const result = await runWorkflow({ graph, specDir: dir, inputs: {}, ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
  return { result, events };
}

describe('an llm judge through the provider layer', () => {
  let fake: FakeOllama;

  it('is asked for the schema-bound verdict; a free-text reply is refused, and the judge is asked again with the problem', async () => {
    fake = await startFakeOllama({
      models: [{ name: MODEL }],
      chat: (_request, index) => ({ message: { content: index === 0 ? 'I approve, it is lovely.' : JSON.stringify({ verdict: 'approved', evidence: ['poet#1'] }) } }),
    });
    cleanups.push(() => fake.close());
    const { result, events } = await run(judged(fake.url));
    expect(result.outputs).toEqual({ poem: 'Warm lines wait in RAM' });
    const [first, second] = fake.chatRequests();
    // Structured mode: the reply is bound to the verdict's JSON schema.
    expect(JSON.stringify(first?.format)).toContain('"approved"');
    expect(first?.messages.at(-1)?.content).toContain('[poet#1] (poet):\nWarm lines wait in RAM');
    expect(second?.messages.at(-1)?.content).toContain('Your previous answer could not be used: the verdict was free text');
    const judgments = events.flatMap((e) => (e.type === 'pattern.judgment' ? [e.judgment] : []));
    expect(judgments.map((j) => [j.caller, j.verification.ok])).toEqual([
      // The audit names the model behind the profile (issue 29).
      [{ kind: 'llm', profile: 'critic', model: `ollama:${MODEL}` }, false],
      [{ kind: 'llm', profile: 'critic', model: `ollama:${MODEL}` }, true],
    ]);
    // Both calls are in the privacy log, as a review.
    expect(events.filter((e) => e.type === 'model.called' && e.purpose === 'review' && e.invocation_id === 'p')).toHaveLength(2);
  });

  it('a judge whose model the privacy policy does not allow is never called: the judgment cannot be had, and the node escalates', async () => {
    const { result, events } = await run(judged('http://10.255.255.1:11434'));
    const failure = result.invocations.find((i) => i.id === 'p')?.failure;
    expect(failure?.code).toBe('pattern_escalated');
    expect(failure?.message).toContain('the judge failed');
    expect(failure?.message).toContain('10.255.255.1');
    expect(events.filter((e) => e.type === 'model.called' && e.purpose === 'review')).toEqual([]);
  });
});
