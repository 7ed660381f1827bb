import { describe, expect, it } from 'vitest';
import { RunEvent, eventId, type RunEventPayload } from '@shared/contracts/events';
import { escalation } from '@shared/supervisor/testing/fixtures';
import { memberPlace } from './layer-spans';
import { runSpans } from './trace-to-spans';

/** The pattern and supervisor layers' spans, on small traces built to the event contract. */

const RUN = 'layer-spans-run-0001';
const trace = (payloads: RunEventPayload[]): RunEvent[] => payloads.map((p, seq) => RunEvent.parse({ ...p, id: eventId(RUN, seq), run_id: RUN, seq, ts: new Date(Date.UTC(2026, 11, 1, 10, 0, seq)).toISOString() }));

const e = escalation({ node: 'work', lineage: [{ iterate: 'each', index: 1 }] });
const started: RunEventPayload = { type: 'workflow.started', workflow_id: 'w', workflow_name: 'W', nodes: [{ id: 'work', kind: 'assert' }], inputs: {}, supervisor: { kind: 'model', label: 'ollama:qwen3:4b', local: true } };
const running: RunEventPayload = { type: 'node.invocation', invocation_id: e.invocation_key, node: 'work', lineage: e.correlation_lineage, status: 'running' };

describe('the pattern and supervisor layers as spans', () => {
  it('reads a member run’s place in the loop from its id: iteration, and a PIPELINE step', () => {
    expect(memberPlace('proponent#2')).toEqual({ step: 0, iteration: 2 });
    expect(memberPlace('writer#3.1')).toEqual({ step: 2, iteration: 1 });
    expect(memberPlace('no-place')).toBeUndefined();
  });

  it('a verdict nobody was asked for (a remembered skip) is a supervisor_escalation span with no GenAI operation', () => {
    const spans = runSpans(
      trace([
        started,
        running,
        { type: 'supervisor.escalated', invocation_id: e.invocation_key, escalation: e },
        { type: 'supervisor.verdict', invocation_id: e.invocation_key, node: 'work', verdict: { escalation_id: e.id, verdict: { action: 'skip', reason: 'the supervisor already chose skip' }, decided_by: 'sticky', turns: 0, cost_usd: 0 }, next: 'skip' },
        { ...running, status: 'skipped' } as RunEventPayload,
      ]),
    );
    const decision = spans.find((s) => s.attributes['steward.escalation.id'] === e.id);
    expect(decision?.name).toBe('supervisor_escalation');
    expect(decision?.attributes['gen_ai.operation.name']).toBeUndefined();
    expect(decision?.attributes).toMatchObject({ 'steward.supervisor.action': 'skip', 'steward.supervisor.decided_by': 'sticky', 'steward.supervisor.turns': 0 });
    expect(decision?.status).toEqual({ code: 'ok' });
    expect(decision?.parentSpanId).toBe(spans.find((s) => s.name === `node ${e.invocation_key}`)?.spanId);
  });

  it('a model supervisor’s call made again after a transient error is one chat span with its attempts; a decision the run stopped ends unfinished', () => {
    const call = (attempt: number): RunEventPayload => ({ type: 'model.called', caller: 'supervisor', purpose: 'review', data: ['escalation', 'instructions'], model: 'ollama:qwen3:4b', provider: 'ollama', local: true, bytes: 900, attempt });
    const spans = runSpans(trace([started, running, { type: 'supervisor.escalated', invocation_id: e.invocation_key, escalation: e }, call(1), call(2)]));
    const decision = spans.find((s) => s.name === 'invoke_agent Workflow supervisor');
    expect(decision?.attributes).toMatchObject({ 'gen_ai.provider.name': 'ollama', 'gen_ai.request.model': 'qwen3:4b', 'steward.supervisor.kind': 'model' });
    const chats = spans.filter((s) => s.parentSpanId === decision?.spanId);
    expect(chats.map((s) => [s.name, s.attributes['steward.request.attempts']])).toEqual([['chat qwen3:4b', 2]]);
    expect(decision?.attributes['steward.unfinished']).toBe(true);
  });
});
