import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { AgentSpec } from '@shared/contracts/spec';
import { runAgent } from '../engine/run-agent';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { startFakeOpenAI, type FakeOpenAI } from '../../test-support/fake-openai';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { exportEvents } from './export-otlp';

/**
 * Issue 31: what supervision cost, as attributes of the run's root span in OTLP/JSON. A real agent
 * run (replay student, no tools) reviewed in phase 2 by an OpenAI-compatible TEST DOUBLE that bills
 * tokens, priced with a price list.
 */

type KeyValue = { key: string; value: { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number; arrayValue?: { values: Array<{ stringValue?: string }> } } };
type Span = { name: string; parentSpanId?: string; attributes: KeyValue[] };

function rootOf(body: Uint8Array): Span {
  const request = JSON.parse(new TextDecoder().decode(body)) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Span[] }> }> };
  const spans = request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
  const root = spans.find((s) => s.parentSpanId === undefined || s.parentSpanId === '');
  if (!root) throw new Error('no root span');
  return root;
}

const attr = (span: Span, key: string) => {
  const v = span.attributes.find((a) => a.key === key)?.value;
  if (!v) return undefined;
  if (v.arrayValue) return v.arrayValue.values.map((x) => x.stringValue);
  return v.stringValue ?? v.boolValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.doubleValue);
};

describe('OTLP: the run span says what supervision cost', () => {
  let teacher: FakeOpenAI;
  let ws: ReturnType<typeof tempNotesWorkspace>;
  let events: RunEvent[];
  let label: string;

  beforeAll(async () => {
    teacher = await startFakeOpenAI({
      chat: () => ({ message: { content: JSON.stringify({ verdict: 'accept', reason_codes: [], explanation: 'fine' }) }, usage: { prompt_tokens: 2000, completion_tokens: 500 } }),
    });
    label = `${new URL(teacher.url).host}:teacher-x`;
    ws = tempNotesWorkspace();
    events = [];
    const spec = AgentSpec.parse({
      format: 'steward/v1',
      kind: 'agent',
      id: 'otlp-cost',
      name: 'Priced review',
      instructions: 'Answer.',
      task: 'Say hello.',
      models: { student: { provider: 'script' }, teacher: { provider: 'openai_compatible', base_url: teacher.baseUrl, model: 'teacher-x' } },
      supervision: { enabled: true, phase: 2 },
    });
    const result = await runAgent({
      spec,
      specDir: ws.dir,
      script: { latency_ms: 0, student: [{ json: { decision_type: 'complete', output: 'Hello.' } }], teacher: [] },
      ledger: createMemoryLedger(),
      onEvent: (e) => events.push(e),
    });
    if (result.status !== 'completed') throw new Error(`the run ended ${result.status}: ${result.message ?? ''}`);
  });
  afterAll(async () => {
    await teacher.close();
    ws.cleanup();
  });

  it('carries gen_ai.usage.* for the run and steward.supervision.* for the teacher, priced', () => {
    const root = rootOf(exportEvents(events, { [label]: { input_per_mtok_usd: 3, output_per_mtok_usd: 15 } }).body);
    expect(root.name).toMatch(/^invoke_agent /);
    // The replay student reports no tokens: the run's tokens are the teacher's.
    expect([attr(root, 'gen_ai.usage.input_tokens'), attr(root, 'gen_ai.usage.output_tokens')]).toEqual([2000, 500]);
    expect(attr(root, 'steward.supervision.calls')).toBe(1);
    expect(attr(root, 'steward.supervision.input_tokens')).toBe(2000);
    expect(attr(root, 'steward.supervision.output_tokens')).toBe(500);
    expect(attr(root, 'steward.supervision.cost_usd')).toBeCloseTo((2000 * 3 + 500 * 15) / 1_000_000, 9);
    expect(attr(root, 'steward.supervision.cost_complete')).toBe(true);
    expect(attr(root, 'steward.supervision.teacher.calls')).toBe(1);
    expect(attr(root, 'steward.supervision.latency_ms')).toEqual(expect.any(Number));
    expect(attr(root, 'steward.cost.usd')).toBeCloseTo(0.0135, 9);
  });

  it('a run recorded before calls were answered exports its calls and no cost or tokens it does not know', () => {
    const older = events.filter((e) => e.type !== 'model.answered');
    const root = rootOf(exportEvents(older, { [label]: { input_per_mtok_usd: 3, output_per_mtok_usd: 15 } }).body);
    expect(attr(root, 'steward.supervision.calls')).toBe(1);
    expect(attr(root, 'steward.supervision.cost_usd')).toBeUndefined();
    expect(attr(root, 'steward.supervision.input_tokens')).toBeUndefined();
    expect(attr(root, 'steward.cost.usd')).toBeUndefined();
  });
});
