import { describe, expect, it } from 'vitest';
import { VerifierSettings } from './contracts';
import { verifyVerdict, type Judged } from './verifier';

const JUDGED: Judged = {
  output: 'final draft',
  outputs: [
    { id: 'o1', member_id: 'writer', text: 'draft' },
    { id: 'o2', member_id: 'critic', text: 'review' },
  ],
};
const LLM = { kind: 'llm' as const, profile: 'judge' };
const settings = (s: Partial<VerifierSettings> = {}): VerifierSettings => VerifierSettings.parse(s);

describe('the verifier', () => {
  it('never parses free text: a verdict written as prose is refused even when it says "approved"', () => {
    const r = verifyVerdict('{"verdict":"approved","evidence":["o1"]}', JUDGED, settings(), LLM);
    expect(r).toEqual({ ok: false, problem: expect.stringContaining('free text') });
  });

  it('refuses a verdict that breaks its schema, naming the field', () => {
    const r = verifyVerdict({ verdict: 'rejected', evidence: ['o1'] }, JUDGED, settings(), LLM);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toContain('feedback');
    expect(verifyVerdict({ verdict: 'maybe' }, JUDGED, settings(), LLM).ok).toBe(false);
  });

  it('refuses evidence that does not exist in this iteration', () => {
    const r = verifyVerdict({ verdict: 'approved', evidence: ['o9'] }, JUDGED, settings(), LLM);
    expect(r).toEqual({ ok: false, problem: expect.stringContaining('o9') });
  });

  it('requires the configured number of citations and every required member', () => {
    expect(verifyVerdict({ verdict: 'approved', evidence: [] }, JUDGED, settings(), LLM).ok).toBe(false);
    const missing = verifyVerdict({ verdict: 'rejected', feedback: 'add tests', evidence: ['o1'] }, JUDGED, settings({ must_cite: ['critic'] }), LLM);
    expect(missing).toEqual({ ok: false, problem: expect.stringContaining('critic') });
    const ok = verifyVerdict({ verdict: 'rejected', feedback: 'add tests', evidence: ['o1', 'o2', 'o2'] }, JUDGED, settings({ must_cite: ['critic'] }), LLM);
    expect(ok).toEqual({ ok: true, verdict: { verdict: 'rejected', feedback: 'add tests', evidence: ['o1', 'o2'], caller: LLM } });
  });

  it('an approval lets exactly the judged output leave, not anything the judge wrote', () => {
    const r = verifyVerdict({ verdict: 'approved', evidence: ['o1'], note: 'use my version instead' }, JUDGED, settings(), LLM);
    expect(r).toEqual({ ok: true, verdict: { verdict: 'approved', result: 'final draft', evidence: ['o1'], caller: LLM } });
  });

  it('an escalation needs only a reason', () => {
    expect(verifyVerdict({ verdict: 'escalated', reason: 'legal question' }, JUDGED, settings({ min_citations: 3 }), { kind: 'human' })).toEqual({
      ok: true,
      verdict: { verdict: 'escalated', reason: 'legal question', caller: { kind: 'human' } },
    });
  });
});
