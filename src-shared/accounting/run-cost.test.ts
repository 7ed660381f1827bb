import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RunEvent, type RunEventPayload } from '../contracts/events';
import { ModelCaller } from '../contracts/model-call';
import { costJson, tokensText, usdText } from './cost-words';
import { foldUsage, runCost, runCostOfEvents, sumTotals, type UsageTotals } from './run-cost';
import type { PriceList } from './price-list';

const RUN = 'run-cost-0001';
const T0 = Date.parse('2026-12-01T10:00:00.000Z');

/** Stamps payloads as the host does (seq, id, ts), `gapMs` apart, and checks each against the contract. */
function stamp(payloads: RunEventPayload[], gapMs = 1000): RunEvent[] {
  return payloads.map((p, seq) => RunEvent.parse({ ...p, id: `${RUN}:${String(seq).padStart(6, '0')}`, run_id: RUN, seq, ts: new Date(T0 + seq * gapMs).toISOString() }));
}

const called = (caller: ModelCaller, model: string, local: boolean): RunEventPayload => ({ type: 'model.called', caller, purpose: 'review', data: ['task'], model, provider: local ? 'ollama' : 'openai_compatible', local, bytes: 100, attempt: 1 });
const answered = (caller: ModelCaller, model: string, local: boolean, usage: { input_tokens?: number; output_tokens?: number } | undefined, latency_ms: number): RunEventPayload => ({
  type: 'model.answered',
  caller,
  purpose: 'review',
  data: ['task'],
  model,
  local,
  attempt: 1,
  ok: true,
  ...(usage ? { usage } : {}),
  latency_ms,
});

const PRICES: PriceList = { 'api.example.com:teacher-x': { input_per_mtok_usd: 2, output_per_mtok_usd: 8 } };

describe('runCost', () => {
  it('prices a priced teacher, keeps a local student at zero, and adds supervision latency', () => {
    const events = stamp([
      called('student', 'ollama:qwen3:4b', true),
      answered('student', 'ollama:qwen3:4b', true, { input_tokens: 500, output_tokens: 50 }, 300),
      called('teacher', 'api.example.com:teacher-x', false),
      answered('teacher', 'api.example.com:teacher-x', false, { input_tokens: 1_000_000, output_tokens: 250_000 }, 1200),
    ]);
    const cost = runCostOfEvents(events, PRICES);
    expect(cost.supervision).toMatchObject({ calls: 1, recorded_calls: 1, input_tokens: 1_000_000, output_tokens: 250_000, latency_ms: 1200, complete: true });
    expect(cost.supervision.usd).toBeCloseTo(2 + 2, 10);
    expect(cost.total.usd).toBeCloseTo(4, 10);
    expect(cost.roles.map((r) => [r.role, r.usd])).toEqual([
      ['student', 0],
      ['teacher', 4],
    ]);
    expect(cost.supervision_latency_ms).toBe(1200);
    expect(usdText(cost.supervision)).toBe('$4.00');
    expect(tokensText(cost.supervision)).toBe('1,000,000 in · 250,000 out');
  });

  it('says "not recorded" for a run written before calls were answered, never 0', () => {
    const cost = runCostOfEvents(stamp([called('teacher', 'api.example.com:teacher-x', false), called('teacher', 'api.example.com:teacher-x', false)]), PRICES);
    expect(cost.supervision).toMatchObject({ calls: 2, recorded_calls: 0, complete: false });
    expect(usdText(cost.supervision)).toBe('not recorded');
    expect(tokensText(cost.supervision)).toBe('not recorded');
    expect(costJson(cost).supervision).toMatchObject({ calls: 2, input_tokens: null, output_tokens: null, usd: null, latency_ms: null, complete: false });
  });

  it('an unpriced remote model is an unknown cost, a priced local one is billed', () => {
    const cost = runCostOfEvents(
      stamp([
        called('judge', 'api.other.com:judge-y', false),
        answered('judge', 'api.other.com:judge-y', false, { input_tokens: 10, output_tokens: 10 }, 5),
        called('monitor', '127.0.0.1:8080:m', true),
        answered('monitor', '127.0.0.1:8080:m', true, { input_tokens: 1_000_000, output_tokens: 0 }, 5),
      ]),
      { '127.0.0.1:8080:m': { input_per_mtok_usd: 1, output_per_mtok_usd: 0 } },
    );
    expect(cost.roles.find((r) => r.role === 'judge')).toMatchObject({ usd: 0, complete: false, unpriced_models: ['api.other.com:judge-y'] });
    expect(cost.roles.find((r) => r.role === 'monitor')).toMatchObject({ usd: 1, complete: true });
    expect(usdText(cost.supervision)).toBe('≥ $1.00 (api.other.com:judge-y: no price)');
  });

  it('counts the minutes a person was waited for and interventions by kind', () => {
    const events = stamp(
      [
        { type: 'intervention.requested', round: 0, intervention: { id: 'iv-00001', run_id: RUN, kind: 'escalation', round: 0, reason: 'Please decide', reason_codes: [], options: ['approve'], requested_at: new Date(T0).toISOString() } },
        { type: 'verdict.received', round: 0, attempt: { attempt: 1, verdict: { verdict: 'block', reason_codes: ['unsafe_effect'], explanation: 'no' }, usable: true } },
        { type: 'intervention.answered', round: 0, intervention_id: 'iv-00001', answer: { action: 'approve' } },
      ],
      60_000,
    );
    const cost = runCostOfEvents(events, {});
    expect(cost.person).toEqual({ asks: 1, waited_ms: 120_000, waiting: false });
    expect(cost.interventions).toEqual({ teacher_blocked: 1, person_asked: 1 });
  });

  it('folding is idempotent and order-free: the runs list may see an event twice or late', () => {
    const events = stamp([called('teacher', 'a', false), answered('teacher', 'a', false, { input_tokens: 3, output_tokens: 4 }, 7), called('supervisor', 'b', true)]);
    const once = foldUsage(undefined, events);
    const twice = foldUsage(foldUsage(undefined, [events[2]!, events[0]!]), events);
    expect(twice).toEqual(once);
    expect(foldUsage(undefined, events, { student: false })).toEqual(once);
  });
});

// Property: whatever the calls, totals are the sum of their parts and nothing is negative.
const role = fc.constantFrom(...ModelCaller.options);
const model = fc.constantFrom('api.example.com:teacher-x', 'ollama:a', 'api.example.com:unpriced', 'replay');
const count = fc.option(fc.nat({ max: 5_000_000 }), { nil: undefined });
const call = fc.record({ role, model, answered: fc.boolean(), input: count, output: count, latency: fc.nat({ max: 600_000 }) });
const price = fc.record({ input_per_mtok_usd: fc.double({ min: 0, max: 100, noNaN: true }), output_per_mtok_usd: fc.double({ min: 0, max: 100, noNaN: true }) });

type Call = typeof call extends fc.Arbitrary<infer T> ? T : never;

function payloadsOf(calls: Call[]): RunEventPayload[] {
  return calls.flatMap((c) => {
    const local = c.model.startsWith('ollama') || c.model === 'replay';
    const usage = c.input === undefined && c.output === undefined ? undefined : { ...(c.input !== undefined ? { input_tokens: c.input } : {}), ...(c.output !== undefined ? { output_tokens: c.output } : {}) };
    return c.answered ? [called(c.role, c.model, local), answered(c.role, c.model, local, usage, c.latency)] : [called(c.role, c.model, local)];
  });
}

const nonNegative = (t: UsageTotals) => [t.calls, t.recorded_calls, t.counted_calls, t.input_tokens, t.output_tokens, t.usd, t.latency_ms].every((n) => n >= 0 && Number.isFinite(n));
const same = (a: UsageTotals, b: UsageTotals) => {
  expect(a.calls).toBe(b.calls);
  expect(a.recorded_calls).toBe(b.recorded_calls);
  expect(a.input_tokens).toBe(b.input_tokens);
  expect(a.output_tokens).toBe(b.output_tokens);
  expect(a.latency_ms).toBe(b.latency_ms);
  expect(a.usd).toBeCloseTo(b.usd, 6);
  expect(a.complete).toBe(b.complete);
};

describe('runCost properties', () => {
  it('totals equal the sum of their parts (by role and by model), supervision + student = total, never negative', () => {
    fc.assert(
      fc.property(fc.array(call, { maxLength: 40 }), fc.dictionary(model, price), (calls, prices) => {
        const cost = runCost(foldUsage(undefined, stamp(payloadsOf(calls))), prices);
        same(cost.total, sumTotals(cost.roles));
        same(cost.total, sumTotals(cost.models));
        same(cost.supervision, sumTotals(cost.roles.filter((r) => r.role !== 'student')));
        expect(cost.total.calls).toBe(calls.length);
        expect(cost.total.recorded_calls).toBe(calls.filter((c) => c.answered).length);
        for (const t of [cost.total, cost.supervision, ...cost.roles, ...cost.models]) expect(nonNegative(t)).toBe(true);
        expect(cost.person.waited_ms).toBeGreaterThanOrEqual(0);
        expect(cost.supervision_latency_ms).toBe(cost.supervision.latency_ms);
      }),
      { numRuns: 200 },
    );
  });
});
