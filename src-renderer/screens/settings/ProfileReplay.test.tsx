import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { ProfileReplayResult } from '@shared/contracts/profile-replay';
import { ProfileReplayResultView } from './ProfileReplay';
import { replayHeadline } from './profile-replay-words';

const base: ProfileReplayResult = { profile: 'No review v2', rounds: 2, runs: 1, reviewed: 2, newly_reviewed: 0, catches_lost: 0, unreviewed: 0, no_longer_reviewed: [], truncated: false };
const round = (n: number, catchLost: boolean, words: string) => ({ run_id: 'run-1', spec_name: 'Asks the user', started_at: '2026-12-01T10:00:00.000Z', round: n, protected: catchLost, catch_lost: catchLost, verdict: catchLost ? ('block' as const) : ('accept' as const), words });

const view = (result: ProfileReplayResult) => renderToStaticMarkup(<ProfileReplayResultView replay={{ state: 'done', result }} onClose={() => undefined} />);

describe('Replay past verdicts on a supervision profile: the outcome in words', () => {
  it('while the host checks: a busy status saying no model is called', () => {
    const html = renderToStaticMarkup(<ProfileReplayResultView replay={{ state: 'running' }} onClose={() => undefined} />);
    expect(html).toContain('aria-busy="true"');
    expect(html).toContain('Checking the recorded rounds against these review rules… (no model is called)');
  });

  it('an empty history says what records a reviewed round', () => {
    expect(replayHeadline({ ...base, rounds: 0, runs: 0, reviewed: 0 })).toEqual({
      tone: 'empty',
      text: 'No reviewed rounds in this history yet: a supervised run records one each time the teacher is asked. Run a supervised workflow, then replay again.',
    });
  });

  it('nothing lost: every reviewed round would still go to the teacher', () => {
    expect(replayHeadline(base).text).toBe('Under No review v2, every one of the 2 reviewed rounds from 1 run would still go to the teacher.');
  });

  it('rounds no longer reviewed: the headline counts the teacher’s catches, the list shows them first with the run one click away', () => {
    const result = { ...base, unreviewed: 2, catches_lost: 1, no_longer_reviewed: [round(2, true, 'the call write_file … and the teacher blocked it'), round(1, false, 'the call read_text_file … and the teacher accepted it')] };
    expect(replayHeadline(result)).toEqual({
      tone: 'bad',
      text: 'Under No review v2, 2 of the 2 reviewed rounds from 1 run would no longer be reviewed. The teacher stopped one of them (blocked, replaced or escalated): with these rules it would have gone through.',
    });
    const html = view(result);
    expect(html.indexOf('write_file')).toBeLessThan(html.indexOf('read_text_file'));
    expect(html).toContain('protected effect stopped');
    expect(html).toContain('href="#/runs/run-1');
    expect(html).not.toMatch(/catch_lost|review_all|supervision_off/);
  });
});
