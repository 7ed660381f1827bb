import { REASON_CODE_LABELS } from '@shared/contracts/code-words';
import type { Decision } from '@shared/contracts/decision';
import { roundNumber } from '@shared/contracts/round-number';
import { EFFECT_LABELS } from '@shared/contracts/tool-effect';
import type { TeacherVerdict, Verdict } from '@shared/contracts/verdict';
import { REVIEW_RULE_LABELS } from '@shared/policy/review-policy';
import type { UnreviewedRound } from './profile-replay';
import type { RecordedRound } from './recorded-rounds';
import type { VerdictCaseResult } from './replay-verdicts';

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

/** A verdict that flips under a candidate teacher, in words (with what a person then answered, when the teacher's verdict is the case's). */
export function flipWords(result: VerdictCaseResult): string {
  const words = flipSentence(result);
  const person = result.round.person;
  return person === undefined || result.round.decided_by === 'person' ? words : `${words} (a person then answered: ${person})`;
}

/** Who decided the round then, and how: "the recorded teacher blocked it", "the person rejected it (the teacher had escalated it)". */
function thenWords(result: VerdictCaseResult): string {
  const { past, round } = result;
  if (round.decided_by !== 'person') return `the recorded teacher ${PAST[past.verdict]} it`;
  const action = round.person === 'stop' ? 'stopped the run at it' : past.verdict === 'accept' ? 'approved it' : past.verdict === 'replace' ? 'approved it with edited arguments' : 'rejected it';
  const teacher = round.teacher_verdict ? ` (the recorded teacher had ${PAST[round.teacher_verdict.verdict]} it${round.record.reason === 'confirmation_pending' ? ', and the tool asked for confirmation' : ''})` : round.record.reason === 'confirmation_pending' ? ' (the tool asked for confirmation)' : '';
  return `the person ${action}${teacher}`;
}

/** The person's own words, when they left a note. */
function personWords(result: VerdictCaseResult): string {
  const note = result.round.person_note;
  return note !== undefined ? `their note: "${clip(note, 120)}"` : 'no note';
}

function flipSentence(result: VerdictCaseResult): string {
  const { past, now, round } = result;
  const what = describeDecision(round);
  const byPerson = round.decided_by === 'person';
  const then = thenWords(result);
  const thenVerdict = byPerson ? personWords(result) : verdictWords(past);
  switch (result.flip) {
    case 'catch_lost':
      return `${what} would now be accepted; ${then} — then ${thenVerdict}; now ${now ? verdictWords(now) : ''}`;
    case 'stricter':
      return `${what} would now be ${now ? PAST[now.verdict] : ''}; ${then} — now ${now ? verdictWords(now) : ''}`;
    case 'changed':
      return `${what} would now be ${now ? PAST[now.verdict] : ''} instead of ${PAST[past.verdict]}${byPerson ? ` (${then})` : ''} — then ${thenVerdict}; now ${now ? verdictWords(now) : ''}`;
    case 'no_verdict':
      return `${what}: the candidate gave no usable verdict (${result.problem ?? 'no answer'}), so the run would end in its safe failure; ${then}`;
    case undefined:
      return `${what}: the same verdict (${past.verdict})`;
  }
}
