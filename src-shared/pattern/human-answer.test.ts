import { describe, expect, it } from 'vitest';
import { HumanAnswer } from '../contracts/intervention';
import { PatternJudgmentAsk } from './human-ask';
import { humanJudgmentInput, judgmentAnswerProblem } from './human-answer';

const NOW = Date.parse('2026-12-01T10:00:00.000Z');

const ask = (over: Partial<PatternJudgmentAsk> = {}): PatternJudgmentAsk =>
  PatternJudgmentAsk.parse({
    judgment_id: 'review:j0.1.0.1',
    node: 'review',
    pattern_type: 'SUPERVISOR',
    step: 0,
    steps: 1,
    iteration: 1,
    max_iterations: 3,
    output: 'the report',
    outputs: [
      { id: 'o1.worker', member_id: 'worker', text: 'the report' },
      { id: 'o1.helper', member_id: 'helper', text: 'notes' },
    ],
    min_citations: 1,
    must_cite: ['worker'],
    ...over,
  });

describe('a person’s answer to a pattern judgment', () => {
  it('an approval without chosen evidence cites every output the person was shown', () => {
    expect(humanJudgmentInput(ask(), { action: 'approve' })).toEqual({ kind: 'verdict', verdict: { verdict: 'approved', evidence: ['o1.worker', 'o1.helper'] } });
  });

  it('a rejection’s note is the feedback for the next iteration, citing what the person chose', () => {
    expect(humanJudgmentInput(ask(), { action: 'reject', note: ' add the timeline ', evidence: ['o1.worker'] })).toEqual({
      kind: 'verdict',
      verdict: { verdict: 'rejected', feedback: 'add the timeline', evidence: ['o1.worker'] },
    });
  });

  it('an escalation carries the person’s reason, or says a person escalated', () => {
    expect(humanJudgmentInput(ask(), { action: 'escalate', note: 'legal must see this' })).toEqual({ kind: 'verdict', verdict: { verdict: 'escalated', reason: 'legal must see this' } });
    expect(humanJudgmentInput(ask(), { action: 'escalate' })).toMatchObject({ verdict: { verdict: 'escalated', reason: 'the person judging escalated' } });
  });

  it('refuses a rejection without feedback, evidence from elsewhere, and evidence missing a required member', () => {
    expect(judgmentAnswerProblem(ask(), { action: 'reject' }, NOW)).toMatch(/needs its feedback/);
    expect(judgmentAnswerProblem(ask(), { action: 'approve', evidence: ['o9.other'] }, NOW)).toMatch(/does not have: o9.other/);
    expect(judgmentAnswerProblem(ask(), { action: 'approve', evidence: ['o1.helper'] }, NOW)).toMatch(/must cite the output of worker/);
    expect(judgmentAnswerProblem(ask(), { action: 'approve' }, NOW)).toBeUndefined();
    expect(judgmentAnswerProblem(ask(), { action: 'reply', text: 'hm' }, NOW)).toMatch(/answered with approve, reject, escalate/);
  });

  it('after the expiry only the timer’s `expired` is taken; before it, `expired` is refused', () => {
    const expiring = ask({ expires_at: '2026-12-01T10:05:00.000Z' });
    expect(judgmentAnswerProblem(expiring, { action: 'expired' }, NOW)).toBe('this judgment has not expired');
    expect(judgmentAnswerProblem(expiring, { action: 'approve' }, NOW)).toBeUndefined();
    const later = NOW + 6 * 60_000;
    expect(judgmentAnswerProblem(expiring, { action: 'approve' }, later)).toMatch(/expired at 2026-12-01T10:05:00.000Z/);
    expect(judgmentAnswerProblem(expiring, { action: 'expired' }, later)).toBeUndefined();
    expect(humanJudgmentInput(expiring, { action: 'expired' })).toEqual({ kind: 'expired' });
  });

  it('only an approval or a rejection carries evidence in the answer contract', () => {
    expect(HumanAnswer.safeParse({ action: 'escalate', evidence: ['o1.worker'] }).success).toBe(false);
    expect(HumanAnswer.safeParse({ action: 'reject', note: 'x', evidence: ['o1.worker'] }).success).toBe(true);
  });
});
