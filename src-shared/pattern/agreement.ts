import type { AgreementRule, JudgmentVerdict, VerdictKind } from './contracts';

/**
 * Several callers, one decision. An escalation from any caller escalates: a caller who says a
 * person must look is never outvoted. Otherwise the rule counts approvals: all of them, any one, or
 * more than half. Anything short of approval is a rejection, whose feedback is every rejecting
 * caller's, so the next iteration addresses all of it.
 */

export type Agreement =
  | { decision: 'approved' }
  | { decision: 'rejected'; feedback: string }
  | { decision: 'escalated'; reason: string };

const APPROVALS_NEEDED = {
  all: (n) => n,
  any: () => 1,
  majority: (n) => Math.floor(n / 2) + 1,
} as const satisfies Record<AgreementRule, (callers: number) => number>;

export function approvalsNeeded(rule: AgreementRule, callers: number): number {
  return APPROVALS_NEEDED[rule](callers);
}

/** The decision over bare verdict kinds. */
export function agreeKinds(kinds: readonly VerdictKind[], rule: AgreementRule): Agreement['decision'] {
  if (kinds.includes('escalated')) return 'escalated';
  const approvals = kinds.filter((k) => k === 'approved').length;
  return kinds.length > 0 && approvals >= approvalsNeeded(rule, kinds.length) ? 'approved' : 'rejected';
}

export function agree(verdicts: readonly JudgmentVerdict[], rule: AgreementRule): Agreement {
  switch (agreeKinds(verdicts.map((v) => v.verdict), rule)) {
    case 'approved':
      return { decision: 'approved' };
    case 'escalated':
      return { decision: 'escalated', reason: verdicts.flatMap((v) => (v.verdict === 'escalated' ? [v.reason] : [])).join('\n') };
    case 'rejected': {
      const feedback = verdicts.flatMap((v) => (v.verdict === 'rejected' ? [v.feedback] : []));
      return { decision: 'rejected', feedback: feedback.length > 0 ? feedback.join('\n') : 'no caller approved the output' };
    }
  }
}
