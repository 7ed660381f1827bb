import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeAllowedActions, type InvocationFacts } from './allowed-actions';
import { Escalation } from './contracts';
import { buildEscalation, signatureKey } from './escalation';

const factsArb: fc.Arbitrary<InvocationFacts> = fc.record({
  retry_safe: fc.boolean(),
  spent_usd: fc.oneof(fc.constant(0), fc.double({ min: 0.0001, max: 5, noNaN: true })),
  created_assets: fc.oneof(fc.constant([]), fc.array(fc.string({ minLength: 1, maxLength: 10 }), { minLength: 1, maxLength: 3 })),
  has_candidate: fc.boolean(),
  validator_covers_output: fc.boolean(),
  streaming: fc.boolean(),
  emitted: fc.boolean(),
  retries_exhausted: fc.boolean(),
});

describe('the allowed set, computed by the kernel', () => {
  it('a retry is never allowed after a cost was spent or something was created, nor for a node not declared retry-safe (property)', () => {
    fc.assert(
      fc.property(factsArb, (f) => {
        const { actions } = computeAllowedActions(f);
        if (actions.includes('retry')) {
          expect(f.retry_safe).toBe(true);
          expect(f.spent_usd).toBe(0);
          expect(f.created_assets).toEqual([]);
          expect(f.retries_exhausted).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('a streaming node gets exactly end_stream and fail, never skip (property)', () => {
    fc.assert(
      fc.property(factsArb, (f) => {
        const { actions } = computeAllowedActions(f);
        if (f.streaming) expect(actions).toEqual(['end_stream', 'fail']);
        else expect(actions).not.toContain('end_stream');
      }),
      { numRuns: 300 },
    );
  });

  it('substitute needs both a candidate and a validator that covers the whole output; fail is always allowed (property)', () => {
    fc.assert(
      fc.property(factsArb, (f) => {
        const { actions, refused } = computeAllowedActions(f);
        expect(actions).toContain('fail');
        if (actions.includes('substitute')) expect(f.has_candidate && f.validator_covers_output && !f.streaming).toBe(true);
        // Every action left out says why.
        for (const a of ['retry', 'skip', 'substitute', 'end_stream'] as const) if (!actions.includes(a)) expect(refused[a]).toMatch(/\w/);
      }),
      { numRuns: 300 },
    );
  });

  it('a node that already delivered part of its output may only fail', () => {
    const base = { retry_safe: true, spent_usd: 0, created_assets: [], has_candidate: true, validator_covers_output: true, streaming: false };
    expect(computeAllowedActions({ ...base, emitted: true }).actions).toEqual(['fail']);
    expect(computeAllowedActions({ ...base, emitted: false }).actions).toEqual(['retry', 'skip', 'substitute', 'fail']);
  });
});

describe('building an escalation', () => {
  const facts = {
    node: 'extract',
    lineage: [{ iterate: 'each', index: 7 }],
    detail: 'HTTP 429 from api.example.com',
    failure_signature: { http_status: 429, code: 'rate_limited' },
    attempt: 3,
    retry_safe: true,
    spent_usd: 0.02,
    created_assets: [],
    has_candidate: false,
    validator_covers_output: true,
    streaming: false,
    emitted: false,
    now: '2026-12-01T10:00:00.000Z',
  };

  it('is a valid record carrying the kernel-computed allowed set and the invocation key', () => {
    const e = buildEscalation(facts, []);
    expect(Escalation.parse(e)).toEqual(e);
    expect(e.invocation_key).toBe('extract[each=7]');
    expect(e.allowed_actions).toEqual(['skip', 'fail']);
  });

  it('a detail longer than the limit is truncated after redaction', () => {
    const e = buildEscalation({ ...facts, detail: `${'x'.repeat(5000)} api_key=abcdefgh` }, []);
    expect(e.detail.length).toBeLessThanOrEqual(4000);
  });

  it('a candidate output is bounded: long text cut, long lists and deep nesting trimmed', () => {
    let deep: unknown = 'bottom';
    for (let d = 0; d < 20; d++) deep = { d: deep };
    const e = buildEscalation({ ...facts, has_candidate: true, candidate_output: { text: 'y'.repeat(10_000), list: Array.from({ length: 1000 }, (_, i) => i), deep } }, []);
    const c = e.candidate_output as { text: string; list: number[]; deep: unknown };
    expect(c.text.length).toBe(2000);
    expect(c.list).toHaveLength(100);
    expect(JSON.stringify(c.deep)).not.toContain('bottom');
  });

  it('the sticky key uses code, http status and errno, never the message, and a plain error has none', () => {
    expect(signatureKey('extract', { http_status: 429 })).toBe('extract|code=|http=429|errno=');
    expect(signatureKey('extract', {})).toBeUndefined();
  });
});
