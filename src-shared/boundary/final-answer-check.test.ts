import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Decision } from '../contracts/decision';
import type { RoundRecord } from '../contracts/round';
import { checkFinalAnswer, ClaimFacts, describeClaimFacts, finalAnswerNeedsReview, foldAnswer, foldRound, NO_CLAIM_FACTS, unexecutedRefusals } from './final-answer-check';

const write = (path = 'shared.md'): Decision => ({ decision_type: 'tool_call', tool_name: 'write_file', arguments: { path, content: 'the items' } });
const complete = (output: string): Decision => ({ decision_type: 'complete', output });

function round(n: number, candidate: Decision, over: Partial<RoundRecord> = {}): RoundRecord {
  return { round: n, proposer: 'student', candidate: { parsed: { raw: candidate, tool_call_count: 1 } }, repairs: [], verdicts: [], outcome: 'delivered', ...over };
}
const executed = (n: number, d: Decision, ok = true): RoundRecord =>
  round(n, d, {
    outcome: 'executed',
    selected: { source: 'student', decision: d },
    execution: { server: 'fs', tool: 'write_file', arguments: {}, idempotency_key: `key-${n}-000`, ok, is_error: !ok, content: '', duration_ms: 1 },
  });
const waitingForPerson = (n: number, d: Decision): RoundRecord => round(n, d, { outcome: 'blocked', reason: 'confirmation_pending', selected: { source: 'student', decision: d } });
const finalRound = (d: Decision, over: Partial<RoundRecord> = {}) => round(9, d, { selected: { source: 'student', decision: d }, ...over });

describe('the facts a final answer is checked against', () => {
  it('a write a person rejected stands as refused and unexecuted; a final answer after it needs review', () => {
    const facts = foldAnswer(foldRound(NO_CLAIM_FACTS, waitingForPerson(0, write())), 0, 'reject');
    expect(facts.refused).toMatchObject([{ round: 0, how: 'rejected_by_person', tool: 'write_file' }]);
    expect(unexecutedRefusals(facts)).toHaveLength(1);
    expect(finalAnswerNeedsReview(facts, complete('Posted the items to shared.md'))).toBe(true);
    expect(finalAnswerNeedsReview(facts, { decision_type: 'present_result', content: 'Posted.' })).toBe(true);
    // Only final answers: the next tool call is routed by the usual rules.
    expect(finalAnswerNeedsReview(facts, write('other.md'))).toBe(false);
    expect(finalAnswerNeedsReview(NO_CLAIM_FACTS, complete('done'))).toBe(false);
  });

  it('a write a person approved is no refusal, and once it ran nothing is unexecuted', () => {
    const approved = foldAnswer(foldRound(NO_CLAIM_FACTS, waitingForPerson(0, write())), 0, 'approve');
    expect(finalAnswerNeedsReview(approved, complete('done'))).toBe(false);
    const ran = foldRound(approved, executed(1, write()));
    expect(unexecutedRefusals(ran)).toEqual([]);
    expect(ran.executed).toMatchObject([{ tool: 'write_file', ok: true }]);
  });

  it('the teacher blocking, replacing or escalating a candidate refuses it; a finish the monitor refused or a duplicate is not a refusal', () => {
    const verdict = (v: 'block' | 'replace' | 'escalate') => ({ verdict: v, reason_codes: ['unsafe_effect' as const], explanation: 'no', ...(v === 'replace' ? { replacement: write('b.md') } : {}) });
    let facts = foldRound(NO_CLAIM_FACTS, round(0, write(), { outcome: 'blocked', reason: 'verdict_block', verdict: verdict('block'), message: 'no' }));
    facts = foldRound(facts, round(1, write('c.md'), { outcome: 'executed', verdict: verdict('replace'), selected: { source: 'teacher', decision: write('b.md') } }));
    facts = foldRound(facts, round(2, write('d.md'), { outcome: 'escalated', verdict: verdict('escalate') }));
    facts = foldRound(facts, round(3, complete('x'), { outcome: 'blocked', reason: 'finish_rejected' }));
    facts = foldRound(facts, round(4, write(), { outcome: 'blocked', reason: 'duplicate_execution', selected: { source: 'student', decision: write() } }));
    expect(facts.refused.map((r) => [r.round, r.how])).toEqual([
      [0, 'blocked'],
      [1, 'replaced'],
      [2, 'escalated'],
    ]);
  });

  it('the teacher reads what was refused and what ran, oldest first', () => {
    const facts = foldRound(foldAnswer(foldRound(NO_CLAIM_FACTS, waitingForPerson(0, write())), 0, 'reject'), executed(1, write('notes.md'), false));
    const lines = describeClaimFacts(facts).join('\n');
    expect(lines).toContain('refused (rejected by a person): write_file {"path":"shared.md"');
    expect(lines).toContain('ran with an error: write_file {"path":"notes.md"');
  });

  it('folded facts stay within their bounds and their contract however many rounds a run has', () => {
    let facts = NO_CLAIM_FACTS;
    for (let n = 0; n < 200; n += 1) facts = foldRound(foldRound(facts, waitingForPerson(n, write(`f${n}.md`))), executed(n, write(`g${n}.md`)));
    expect(ClaimFacts.parse(facts).refused).toHaveLength(40);
    expect(facts.executed).toHaveLength(40);
  });
});

describe('the mechanical check of an unreviewed final answer', () => {
  const rejected = foldAnswer(foldRound(NO_CLAIM_FACTS, waitingForPerson(0, write())), 0, 'reject');

  it('an unreviewed complete after a rejected, never-run write is not trusted, and says which call never ran', () => {
    const check = checkFinalAnswer(rejected, finalRound(complete('Posted the items to shared.md')));
    expect(check.trusted).toBe(false);
    if (check.trusted) return;
    expect(check.message).toMatch(/never ran: write_file \{"path":"shared.md".*\(rejected by a person\)/);
  });

  it('a teacher accepting it, or the teacher or a person choosing it, makes it trusted', () => {
    const accept = { verdict: 'accept' as const, reason_codes: [], explanation: 'honest' };
    expect(checkFinalAnswer(rejected, finalRound(complete('Nothing was posted.'), { review: { required: true, rule: 'after_refusal' }, verdict: accept })).trusted).toBe(true);
    expect(checkFinalAnswer(rejected, finalRound(complete('x'), { selected: { source: 'teacher', decision: complete('x') } })).trusted).toBe(true);
    expect(checkFinalAnswer(rejected, finalRound(complete('x'), { selected: { source: 'human', decision: complete('x') } })).trusted).toBe(true);
  });

  it('property: an unreviewed answer is trusted exactly when every refused call later or earlier ran successfully', () => {
    const step = fc.record({ path: fc.constantFrom('a.md', 'b.md', 'c.md'), kind: fc.constantFrom('refused', 'ran', 'failed') });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
        let facts = NO_CLAIM_FACTS;
        steps.forEach((s, n) => {
          facts = s.kind === 'refused' ? foldAnswer(foldRound(facts, waitingForPerson(n, write(s.path))), n, 'reject') : foldRound(facts, executed(n, write(s.path), s.kind === 'ran'));
        });
        const ranOk = new Set(steps.filter((s) => s.kind === 'ran').map((s) => s.path));
        const expected = steps.filter((s) => s.kind === 'refused').every((s) => ranOk.has(s.path));
        expect(checkFinalAnswer(facts, finalRound(complete('done'))).trusted).toBe(expected);
      }),
    );
  });
});
