import type { JudgmentFlipView, TeacherReplayResult, TeacherReplayStatus } from '@shared/contracts/profile-replay';
import type { Verdict } from '@shared/contracts/verdict';
import { plural } from '../../view/format';

/**
 * A teacher profile's replay of the past verdicts as the Settings screen says it (issue 31): nothing
 * recorded yet, every verdict held, or how many flip — and first how many past stops of a protected
 * effect the candidate would now accept (the case `steward eval verdicts --teacher` exits 1 on).
 */

const STOPS = { block: 'past block', replace: 'past replacement', escalate: 'past escalation' } satisfies Record<Exclude<Verdict, 'accept'>, string>;
/** A round a person decided (their answer to an escalation or a tool's confirmation): a rejection or stop is a block, an edited approval a replacement. */
const PERSON_STOPS = { block: 'past rejection by a person', replace: 'past edit by a person', escalate: 'past escalation' } satisfies Record<Exclude<Verdict, 'accept'>, string>;

function lostWords(result: TeacherReplayResult): string {
  const counts = new Map<string, number>();
  for (const f of result.flips) {
    if (!f.protected_catch_lost || f.past.verdict === 'accept') continue;
    const said = f.decided_by === 'person' ? PERSON_STOPS[f.past.verdict] : STOPS[f.past.verdict];
    counts.set(said, (counts.get(said) ?? 0) + 1);
  }
  const listed = [...counts.values()].reduce((a, b) => a + b, 0);
  const parts = [...counts].map(([said, n]) => plural(n, said));
  // More than the list holds: counted without their kind.
  if (result.protected_catches_lost > listed) parts.push(plural(result.protected_catches_lost - listed, 'other past stop'));
  const said = parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1) ?? ''}`;
  return `${said} of a protected effect would now be accepted`;
}

/** The pattern judgments' part (seed 002): a judgment is no effect, so a flip there warns and never reads as a lost protected catch. */
function judgmentWords(result: TeacherReplayResult): { text: string; flipped: boolean } {
  const j = result.judgments;
  if (!j || j.cases === 0) return { text: '', flipped: false };
  const of = plural(j.cases, 'pattern judgment');
  if (j.flipped === 0) return { text: `It judged as recorded on ${j.cases === 1 ? 'the' : 'all'} ${of}.`, flipped: false };
  const gained = j.approvals_gained > 0 ? `: it would approve ${plural(j.approvals_gained, 'output')} a judge or a person stopped` : '';
  return { text: `${j.flipped} of the ${of} flip${gained}.`, flipped: true };
}

export function teacherReplayHeadline(result: TeacherReplayResult, state: TeacherReplayStatus['state'] = 'completed'): { tone: 'ok' | 'warn' | 'bad' | 'empty'; text: string } {
  const read = result.truncated ? ` (the newest ${plural(result.cases, 'recorded verdict')} of the history)` : '';
  const partly = state === 'completed' ? '' : ' Only part of the history was compared.';
  const judged = judgmentWords(result);
  const also = judged.text === '' ? '' : ` ${judged.text}`;
  if (result.cases === 0) {
    if (judged.text !== '') return { tone: judged.flipped ? 'warn' : 'ok', text: `Under ${result.teacher}, ${judged.text.charAt(0).toLowerCase()}${judged.text.slice(1)}${partly}` };
    if (state !== 'completed') return { tone: 'empty', text: `No past verdict was compared under ${result.teacher}.` };
    return { tone: 'empty', text: 'No recorded teacher verdicts or pattern judgments in this history yet: a supervised run records one each time the teacher rules on a round, a pattern node each time it is judged. Run a supervised workflow, then replay again.' };
  }
  const of = `${result.cases} past verdict${result.cases === 1 ? '' : 's'} from ${plural(result.runs, 'run')}${read}`;
  if (result.flipped === 0) return { tone: judged.flipped ? 'warn' : 'ok', text: `Under ${result.teacher}, none of the ${of} flips: it ruled as the recorded teacher on every one.${also}${partly}` };
  const flips = `Under ${result.teacher}, ${result.flipped} of the ${of} flip`;
  if (result.protected_catches_lost > 0) return { tone: 'bad', text: `${flips}; ${lostWords(result)}. Do not switch to this teacher as it is.${also}${partly}` };
  return { tone: 'warn', text: `${flips}; none of them lets through a protected effect the recorded teacher stopped.${also}${partly}` };
}

export const FLIP_TAGS = {
  catch_lost: 'now accepted',
  stricter: 'now stricter',
  changed: 'now different',
  no_verdict: 'no usable verdict',
} satisfies Record<TeacherReplayResult['flips'][number]['kind'], string>;

export const JUDGMENT_FLIP_TAGS = {
  catch_lost: 'now approved',
  stricter: 'now stricter',
  changed: 'now different',
  no_verdict: 'no usable judgment',
} satisfies Record<JudgmentFlipView['kind'], string>;

export const JUDGE_WORDS = { llm: 'model judge then', a2a: 'A2A judge then', human: 'judged by a person' } satisfies Record<JudgmentFlipView['judge'], string>;
