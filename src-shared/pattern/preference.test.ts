import { describe, expect, it } from 'vitest';
import type { JudgmentRecord, JudgmentVerdict } from './contracts';
import { preferencePairs, type JudgedIteration } from './preference';

const caller = { kind: 'llm' as const, profile: 'judge' };
const record = (step: number, iteration: number, verdict: JudgmentVerdict | undefined, n = 0): JudgmentRecord => ({
  id: `p:j${step}.${iteration}.${n}.1`,
  step,
  iteration,
  attempt: 1,
  caller,
  ...(verdict ? { verdict } : {}),
  evidence: [],
  verification: verdict ? { ok: true } : { ok: false, problem: 'free text' },
  started_at: '',
  ended_at: '',
});
const rejected = (feedback: string): JudgmentVerdict => ({ verdict: 'rejected', feedback, evidence: [], caller });
const approved: JudgmentVerdict = { verdict: 'approved', result: 'x', evidence: [], caller };
const it_ = (step: number, iteration: number, output: string): JudgedIteration => ({ step, iteration, prompt: `prompt ${step}.${iteration}`, output });

describe('preference pairs from judgments', () => {
  it('a rejected output, its feedback and the approved next output of the same step make one pair', () => {
    const pairs = preferencePairs([it_(0, 1, 'draft without risks'), it_(0, 2, 'draft with risks')], [record(0, 1, rejected('Missing a Risks section.')), record(0, 2, approved)], 'all');
    expect(pairs).toEqual([
      { step: 0, prompt: 'prompt 0.1', rejected: 'draft without risks', feedback: 'Missing a Risks section.', chosen: 'draft with risks', judgments: { rejected: 'p:j0.1.0.1', approved: 'p:j0.2.0.1' } },
    ]);
  });

  it('no pair across steps, after an approval, or when the second output is also rejected', () => {
    const iterations = [it_(0, 1, 'a'), it_(1, 1, 'b'), it_(1, 2, 'c'), it_(1, 3, 'd')];
    const judgments = [record(0, 1, rejected('no')), record(1, 1, approved), record(1, 2, rejected('no')), record(1, 3, rejected('still no'))];
    expect(preferencePairs(iterations, judgments, 'all')).toEqual([]);
  });

  it('the decision follows the agreement rule: under `any`, one approval among two callers approves', () => {
    const judgments = [record(0, 1, rejected('Too short.')), record(0, 2, approved, 0), record(0, 2, rejected('meh'), 1)];
    expect(preferencePairs([it_(0, 1, 'a'), it_(0, 2, 'b')], judgments, 'any')).toHaveLength(1);
    expect(preferencePairs([it_(0, 1, 'a'), it_(0, 2, 'b')], judgments, 'all')).toEqual([]);
  });

  it('an unverified answer decides nothing', () => {
    expect(preferencePairs([it_(0, 1, 'a'), it_(0, 2, 'b')], [record(0, 1, undefined), record(0, 2, approved)], 'all')).toEqual([]);
  });
});
