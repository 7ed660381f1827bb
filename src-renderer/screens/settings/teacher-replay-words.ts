import type { TeacherReplayResult, TeacherReplayStatus } from '@shared/contracts/profile-replay';
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

export function teacherReplayHeadline(result: TeacherReplayResult, state: TeacherReplayStatus['state'] = 'completed'): { tone: 'ok' | 'warn' | 'bad' | 'empty'; text: string } {
  const read = result.truncated ? ` (the newest ${plural(result.cases, 'recorded verdict')} of the history)` : '';
  const partly = state === 'completed' ? '' : ' Only part of the history was compared.';
  if (result.cases === 0) {
    if (state !== 'completed') return { tone: 'empty', text: `No past verdict was compared under ${result.teacher}.` };
    return { tone: 'empty', text: 'No recorded teacher verdicts in this history yet: a supervised run records one each time the teacher rules on a round. Run a supervised workflow, then replay again.' };
  }
  const of = `${result.cases} past verdict${result.cases === 1 ? '' : 's'} from ${plural(result.runs, 'run')}${read}`;
  if (result.flipped === 0) return { tone: 'ok', text: `Under ${result.teacher}, none of the ${of} flips: it ruled as the recorded teacher on every one.${partly}` };
  const flips = `Under ${result.teacher}, ${result.flipped} of the ${of} flip`;
  if (result.protected_catches_lost > 0) return { tone: 'bad', text: `${flips}; ${lostWords(result)}. Do not switch to this teacher as it is.${partly}` };
  return { tone: 'warn', text: `${flips}; none of them lets through a protected effect the recorded teacher stopped.${partly}` };
}

export const FLIP_TAGS = {
  catch_lost: 'now accepted',
  stricter: 'now stricter',
  changed: 'now different',
  no_verdict: 'no usable verdict',
} satisfies Record<TeacherReplayResult['flips'][number]['kind'], string>;
