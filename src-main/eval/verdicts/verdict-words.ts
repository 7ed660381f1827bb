import { REASON_CODE_LABELS } from '@shared/contracts/code-words';
import type { Decision } from '@shared/contracts/decision';
import { roundNumber } from '@shared/contracts/round-number';
import { EFFECT_LABELS } from '@shared/contracts/tool-effect';
import type { TeacherVerdict, Verdict } from '@shared/contracts/verdict';
import { REVIEW_RULE_LABELS } from '@shared/policy/review-policy';
import type { UnreviewedRound } from './profile-replay';
import type { RecordedRound } from './recorded-rounds';
import type { VerdictCaseResult } from './replay-verdicts';
import type { JudgeVerdict, JudgmentVerdict } from '@shared/pattern/contracts';
import type { RecordedJudgment } from './recorded-judgments';
import type { JudgmentCaseResult } from './replay-judgments';

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

const JUDGED = { approved: 'approved', rejected: 'rejected', escalated: 'escalated' } satisfies Record<JudgeVerdict['verdict'], string>;

/** Where a judgment was: "run 1a2b3c4d · Drafting · critic_loop judgment 2 (step 1, iteration 2)". */
export function judgmentWhere(j: RecordedJudgment): string {
  return `run ${j.run_id.slice(0, 8)} · ${j.spec_name} · ${j.invocation_id} judgment at step ${j.step + 1}, iteration ${j.iteration}`;
}

function judgeWho(j: RecordedJudgment): string {
  switch (j.caller.kind) {
    case 'human':
      return j.caller.who !== undefined ? `the person (${j.caller.who})` : 'the person';
    case 'llm':
      return `the model judge “${j.caller.profile}”${j.caller.model !== undefined ? ` (${j.caller.model})` : ''}`;
    case 'a2a':
      return `the A2A judge ${j.caller.agent?.name ?? j.caller.name ?? j.caller.url}`;
  }
}

function judgedWords(v: JudgeVerdict | JudgmentVerdict): string {
  switch (v.verdict) {
    case 'approved':
      return 'approved';
    case 'rejected':
      return `rejected: "${clip(v.feedback, 120)}"`;
    case 'escalated':
      return `escalated: "${clip(v.reason, 120)}"`;
  }
}

/** A judgment that flips under a candidate teacher, in words. */
export function judgmentFlipWords(r: JudgmentCaseResult): string {
  const { judgment: j, now } = r;
  const then = `${judgeWho(j)} ${judgedWords(j.past)}`;
  switch (r.flip) {
    case 'catch_lost':
      return `the output would now be approved and leave the node; then ${then}`;
    case 'stricter':
      return `the output would now be ${now ? judgedWords(now) : ''}; then ${then}`;
    case 'changed':
      return `the output would now be ${now ? JUDGED[now.verdict] : ''} instead of ${JUDGED[j.past.verdict]} — then ${then}; now ${now ? judgedWords(now) : ''}`;
    case 'no_verdict':
      return `the candidate gave no usable judgment (${r.problem ?? 'no answer'}); then ${then}`;
    case undefined:
      return `the same judgment (${j.past.verdict})`;
  }
}
