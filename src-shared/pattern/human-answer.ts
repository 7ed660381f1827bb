import type { HumanAnswer } from '../contracts/intervention';
import type { JudgeVerdict } from './contracts';
import { judgmentExpired, type PatternJudgmentAsk } from './human-ask';
import { verifyVerdict } from './verifier';

/**
 * A person's answer to a pattern judgment, as the loop takes it: approve and reject are verdicts
 * citing the outputs the person chose (every output shown, when they chose none), reject's note is
 * the feedback for the next iteration, escalate's note the reason. `expired` is the host's timer.
 */

export type HumanJudgmentInput = { kind: 'verdict'; verdict: JudgeVerdict } | { kind: 'expired' };

export const JUDGMENT_ACTIONS = ['approve', 'reject', 'escalate'] as const satisfies readonly HumanAnswer['action'][];

const ESCALATED_BY_PERSON = 'the person judging escalated';

/** The verdict an answer stands for (not yet checked: see `judgmentAnswerProblem`). */
export function humanJudgmentInput(ask: PatternJudgmentAsk, answer: HumanAnswer): HumanJudgmentInput {
  const evidence = answer.evidence ?? ask.outputs.map((o) => o.id);
  switch (answer.action) {
    case 'approve':
      return { kind: 'verdict', verdict: { verdict: 'approved', evidence, ...(answer.note ? { note: answer.note } : {}) } };
    case 'reject':
      return { kind: 'verdict', verdict: { verdict: 'rejected', feedback: answer.note?.trim() ?? '', evidence } };
    case 'expired':
      return { kind: 'expired' };
    default:
      return { kind: 'verdict', verdict: { verdict: 'escalated', reason: answer.note?.trim() || ESCALATED_BY_PERSON } };
  }
}

/**
 * Why this answer cannot be taken, checked before the run resumes so the person can correct it at
 * once (the loop verifies it again): a rejection without feedback, evidence that is not this
 * iteration's or not enough, an answer after the expiry, an expiry claimed before it is due.
 */
export function judgmentAnswerProblem(ask: PatternJudgmentAsk, answer: HumanAnswer, now: number): string | undefined {
  if (answer.action === 'expired') return judgmentExpired(ask, now) ? undefined : 'this judgment has not expired';
  if (judgmentExpired(ask, now)) return `this judgment expired at ${ask.expires_at ?? ''}: its fallback takes it`;
  if (!(JUDGMENT_ACTIONS as readonly string[]).includes(answer.action)) return `a judgment is answered with ${JUDGMENT_ACTIONS.join(', ')}`;
  if (answer.action === 'reject' && !answer.note?.trim()) return 'a rejection needs its feedback: what the next iteration should address';
  const input = humanJudgmentInput(ask, answer);
  if (input.kind !== 'verdict') return undefined;
  const checked = verifyVerdict(input.verdict, { output: ask.output, outputs: ask.outputs }, { min_citations: ask.min_citations, must_cite: ask.must_cite }, { kind: 'human' });
  return checked.ok ? undefined : checked.problem;
}
