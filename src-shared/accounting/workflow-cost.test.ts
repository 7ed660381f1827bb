import { describe, expect, it } from 'vitest';
import { RunEvent, type RunEventPayload } from '../contracts/events';
import { summarize } from '../history/run-summary';
import { mergedPricing, priceOf } from './price-list';
import { workflowCosts } from './workflow-cost';

const T0 = Date.parse('2026-12-01T10:00:00.000Z');

function run(runId: string, specId: string, payloads: RunEventPayload[]): RunEvent[] {
  return payloads.map((p, seq) => RunEvent.parse({ ...p, id: `${runId}:${String(seq).padStart(6, '0')}`, run_id: runId, seq, ts: new Date(T0 + seq * 1000).toISOString() }));
}

const started = (specId: string): RunEventPayload =>
  RunEvent.parse({ id: 'x-00000000', run_id: 'x-00000000', seq: 0, ts: new Date(T0).toISOString(),
  type: 'run.started',
  spec_id: specId,
  spec_name: specId === 'a' ? 'Workflow A' : 'Workflow B',
  task: 't',
  supervision: { enabled: true, phase: 2 },
  models: { student: 'replay', teacher: 'api.x.com:t' },
  }) as RunEventPayload;
const call = (caller: 'student' | 'teacher', input: number, output: number): RunEventPayload[] => [
  { type: 'model.called', caller, purpose: 'review', data: ['task'], model: caller === 'teacher' ? 'api.x.com:t' : 'replay', provider: caller === 'teacher' ? 'openai_compatible' : 'script', local: caller !== 'teacher', bytes: 10, attempt: 1 },
  { type: 'model.answered', caller, purpose: 'review', data: ['task'], model: caller === 'teacher' ? 'api.x.com:t' : 'replay', local: caller !== 'teacher', attempt: 1, ok: true, usage: { input_tokens: input, output_tokens: output }, latency_ms: 10 },
];

describe('the runs list row and the per-workflow totals', () => {
  it('a row keeps the supervision facts (not the student’s); totals per workflow add its runs up', () => {
    const prices = { 'api.x.com:t': { input_per_mtok_usd: 1, output_per_mtok_usd: 2 } };
    const a1 = summarize(undefined, run('run-a-0001', 'a', [started('a'), ...call('student', 5, 5), ...call('teacher', 1_000_000, 0)]), 5);
    const a2 = summarize(undefined, run('run-a-0002', 'a', [started('a'), ...call('teacher', 0, 1_000_000)]), 3);
    const b1 = summarize(undefined, run('run-b-0001', 'b', [started('b'), ...call('student', 5, 5)]), 3);
    expect(Object.values(a1?.usage?.called ?? {}).map(([role]) => role)).toEqual(['teacher']);
    expect(b1?.usage).toBeUndefined();
    const totals = workflowCosts([a1!, a2!, b1!], prices);
    expect(totals.map((t) => [t.workflow_id, t.runs, t.supervision.calls, t.supervision.usd])).toEqual([
      ['a', 2, 2, 3],
      ['b', 1, 0, 0],
    ]);
  });

  it('one price list: local models cost 0 unless priced, a workflow’s own entries win in the supervisor’s table', () => {
    expect(priceOf('ollama:q', true, {})).toEqual({ input_per_mtok_usd: 0, output_per_mtok_usd: 0 });
    expect(priceOf('api.x.com:t', false, {})).toBeUndefined();
    const app = { 'api.x.com:t': { input_per_mtok_usd: 1, output_per_mtok_usd: 1 }, 'api.y.com:u': { input_per_mtok_usd: 5, output_per_mtok_usd: 5 } };
    const own = { 'api.x.com:t': { input_per_mtok_usd: 9, output_per_mtok_usd: 9 } };
    expect(mergedPricing(app, own)).toEqual({ 'api.x.com:t': own['api.x.com:t'], 'api.y.com:u': app['api.y.com:u'] });
    // A label that is a prototype's name is an own entry, never Object.prototype's.
    const hostile = JSON.parse('{"__proto__": {"input_per_mtok_usd": 1, "output_per_mtok_usd": 1}}') as typeof app;
    const merged = mergedPricing(hostile, {});
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.hasOwn(merged, '__proto__')).toBe(true);
    expect(priceOf('__proto__', false, merged)).toEqual({ input_per_mtok_usd: 1, output_per_mtok_usd: 1 });
    expect(priceOf('constructor', false, merged)).toBeUndefined();
  });
});
