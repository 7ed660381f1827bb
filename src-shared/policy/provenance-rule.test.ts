import { describe, expect, it } from 'vitest';
import type { ArgumentProvenance } from '../boundary/provenance';
import type { Decision } from '../contracts/decision';
import { ReviewRules } from '../contracts/spec';
import { decideReview, ReviewDecision } from './review-policy';

/** The review rule `untrusted_provenance` (issue 31): phases 3 and 4, tool calls only, on unless turned off, its reason in words. */

const mark: ArgumentProvenance = { path: 'path', value: '/tmp/pwned.txt', kind: 'path', sources: [{ server: 'fs', tool: 'read_text_file', round: 1, trust: 'untrusted' }] };
const read: Decision = { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: '/tmp/pwned.txt' } };
const done: Decision = { decision_type: 'complete', output: 'see /tmp/pwned.txt' };
const rules = ReviewRules.parse({});
const at = (phase: 0 | 1 | 2 | 3 | 4, over: Partial<Parameters<typeof decideReview>[0]> = {}) =>
  decideReview({ supervision: { enabled: true, phase, rules }, validationOk: true, decision: read, effect: 'read', proposer: 'student', sampled: false, untrusted: [mark], ...over });

describe('review rule untrusted_provenance', () => {
  it('sends an unprotected call carrying an untrusted value to review in phases 3 and 4, naming the argument and its source', () => {
    for (const phase of [3, 4] as const) {
      const d = at(phase);
      expect(d).toEqual({ required: true, rule: 'untrusted_provenance', detail: 'argument path carries "/tmp/pwned.txt" from fs/read_text_file in round 2 (untrusted)' });
      expect(ReviewDecision.safeParse(d).success).toBe(true);
    }
  });

  it('outranks protected_effect so the reason names the source; phase 2 still records review_all; the teacher\'s own proposals are not reviewed', () => {
    expect(at(4, { effect: 'irreversible_write' }).rule).toBe('untrusted_provenance');
    expect(at(2)).toEqual({ required: true, rule: 'review_all' });
    expect(at(4, { proposer: 'teacher' })).toEqual({ required: false, rule: 'teacher_proposed' });
  });

  it('is on when absent, off when set false; applies to tool calls only; no marks, no review', () => {
    expect(rules.untrusted_provenance).toBeUndefined();
    const off = decideReview({ supervision: { enabled: true, phase: 4, rules: { ...rules, untrusted_provenance: false } }, validationOk: true, decision: read, effect: 'read', proposer: 'student', sampled: false, untrusted: [mark] });
    expect(off).toEqual({ required: false, rule: 'not_required' });
    expect(at(4, { decision: done, effect: undefined })).toEqual({ required: false, rule: 'not_required' });
    expect(at(4, { untrusted: [] })).toEqual({ required: false, rule: 'not_required' });
  });
});
