import { REASON_CODE_LABELS } from '@shared/contracts/code-words';
import type { Decision } from '@shared/contracts/decision';
import { roundNumber } from '@shared/contracts/round-number';
import { EFFECT_LABELS } from '@shared/contracts/tool-effect';
import type { TeacherVerdict, Verdict } from '@shared/contracts/verdict';
import { REVIEW_RULE_LABELS } from '@shared/policy/review-policy';
import type { UnreviewedRound } from './profile-replay';
import type { RecordedRound } from './recorded-rounds';

/** How `steward eval verdicts` and the Settings screen's profile replay say a recorded round and its verdict. */

export const PAST = { accept: 'accepted', replace: 'replaced', block: 'blocked', escalate: 'escalated' } satisfies Record<Verdict, string>;

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

export function describeDecision(round: RecordedRound): string {
  const decision: Decision | undefined = round.decision;
  const tool = round.tool ? ` (${EFFECT_LABELS[round.tool.effect].toLowerCase()}${round.protected ? ', protected' : ''})` : round.protected ? ' (protected)' : '';
  if (decision?.decision_type === 'tool_call') return `the call ${decision.tool_name} ${clip(JSON.stringify(decision.arguments), 80)}${tool}`;
  if (decision) return `the ${decision.decision_type.replace('_', ' ')} decision`;
  return `a candidate that failed validation${tool}`;
}

export function where(round: RecordedRound): string {
  return `run ${round.run_id.slice(0, 8)} · ${round.spec_name} · round ${roundNumber(round.round)}`;
}

export function verdictWords(verdict: TeacherVerdict): string {
  // The reason codes in words (issue 28); `--json` keeps the codes themselves.
  const codes = verdict.reason_codes.length > 0 ? ` (${verdict.reason_codes.map((code) => REASON_CODE_LABELS[code]).join(', ')})` : '';
  return `${verdict.verdict}${codes}: "${clip(verdict.explanation, 120)}"`;
}

export function unreviewedWords(u: UnreviewedRound): string {
  const verdict = u.round.verdict;
  const then = verdict ? `the teacher ${PAST[verdict.verdict]} it${verdict.verdict === 'accept' ? '' : ` (${verdictWords(verdict)})`}` : 'the teacher was asked';
  return `${describeDecision(u.round)} was reviewed (${REVIEW_RULE_LABELS[u.then.rule]}) and ${then}; under the new rules nobody reviews it (${REVIEW_RULE_LABELS[u.now.rule]})`;
}
