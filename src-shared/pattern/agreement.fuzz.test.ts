import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agree, agreeKinds } from './agreement';
import { AGREEMENT_RULES, type JudgmentVerdict, type VerdictKind } from './contracts';

const kinds = fc.array(fc.constantFrom<VerdictKind>('approved', 'rejected', 'escalated'), { minLength: 1, maxLength: 7 });
const rule = fc.constantFrom(...AGREEMENT_RULES);
const LLM = { kind: 'llm' as const, profile: 'judge' };
const verdictOf = (k: VerdictKind, i: number): JudgmentVerdict =>
  k === 'approved'
    ? { verdict: k, result: 'out', evidence: [], caller: LLM }
    : k === 'rejected'
      ? { verdict: k, feedback: `fix ${i}`, evidence: [], caller: LLM }
      : { verdict: k, reason: `look ${i}`, caller: LLM };

describe('agreement between several callers (property)', () => {
  it('one escalation escalates under every rule: a caller asking for a person is never outvoted', () => {
    fc.assert(fc.property(kinds, rule, (ks, r) => {
        expect(agreeKinds(ks, r) === 'escalated').toBe(ks.includes('escalated'));
      }));
  });

  it('all ⇒ majority ⇒ any: an output approved under a stricter rule is approved under every looser one', () => {
    fc.assert(
      fc.property(kinds, (ks) => {
        if (agreeKinds(ks, 'all') === 'approved') expect(agreeKinds(ks, 'majority')).toBe('approved');
        if (agreeKinds(ks, 'majority') === 'approved') expect(agreeKinds(ks, 'any')).toBe('approved');
      }),
    );
  });

  it('turning a rejection into an approval never turns an approval into anything else (monotone)', () => {
    fc.assert(
      fc.property(kinds, rule, fc.nat(), (ks, r, at) => {
        const i = at % ks.length;
        if (ks[i] !== 'rejected' || agreeKinds(ks, r) !== 'approved') return;
        const more = ks.map((k, j) => (j === i ? ('approved' as const) : k));
        expect(agreeKinds(more, r)).toBe('approved');
      }),
    );
  });

  it('a single caller decides alone under every rule, and the order of callers never matters', () => {
    fc.assert(fc.property(fc.constantFrom<VerdictKind>('approved', 'rejected', 'escalated'), rule, (k, r) => {
        expect(agreeKinds([k], r)).toBe(k);
      }));
    fc.assert(fc.property(kinds, rule, (ks, r) => {
        expect(agreeKinds([...ks].reverse(), r)).toBe(agreeKinds(ks, r));
      }));
  });

  it('majority means more than half: two of four is not enough, three of four is', () => {
    expect(agreeKinds(['approved', 'approved', 'rejected', 'rejected'], 'majority')).toBe('rejected');
    expect(agreeKinds(['approved', 'approved', 'approved', 'rejected'], 'majority')).toBe('approved');
  });

  it('a rejection carries every rejecting caller’s feedback, so the next iteration addresses all of it', () => {
    fc.assert(
      fc.property(kinds, rule, (ks, r) => {
        const decided = agree(ks.map(verdictOf), r);
        expect(decided.decision).toBe(agreeKinds(ks, r));
        if (decided.decision !== 'rejected') return;
        ks.forEach((k, i) => {
          if (k === 'rejected') expect(decided.feedback).toContain(`fix ${i}`);
        });
      }),
    );
  });
});
