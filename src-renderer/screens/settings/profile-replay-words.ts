import type { ProfileReplayResult } from '@shared/contracts/profile-replay';
import { plural } from '../../view/format';

/**
 * A profile replay's outcome as the Settings screen says it (issue 31): nothing recorded yet, every
 * reviewed round still reviewed, or how many would no longer be — and how many of those the
 * teacher had stopped, which with these rules would have gone through.
 */
export function replayHeadline(result: ProfileReplayResult): { tone: 'ok' | 'warn' | 'bad' | 'empty'; text: string } {
  const more = result.newly_reviewed > 0 ? ` ${plural(result.newly_reviewed, 'round')} not reviewed then would be.` : '';
  const read = result.truncated ? ` (the newest ${plural(result.rounds, 'reviewed round')} of the history)` : '';
  if (result.reviewed === 0) {
    return { tone: 'empty', text: 'No reviewed rounds in this history yet: a supervised run records one each time the teacher is asked. Run a supervised workflow, then replay again.' };
  }
  const of = `${plural(result.reviewed, 'reviewed round')} from ${plural(result.runs, 'run')}${read}`;
  if (result.unreviewed === 0) return { tone: 'ok', text: `Under ${result.profile}, every one of the ${of} would still go to the teacher.${more}` };
  const lost =
    result.catches_lost > 0
      ? ` The teacher stopped ${result.catches_lost === 1 ? 'one of them' : `${result.catches_lost} of them`} (blocked, replaced or escalated): with these rules ${result.catches_lost === 1 ? 'it' : 'they'} would have gone through.`
      : ' The teacher accepted each of them then.';
  return { tone: result.catches_lost > 0 ? 'bad' : 'warn', text: `Under ${result.profile}, ${result.unreviewed} of the ${of} would no longer be reviewed.${lost}${more}` };
}
