import type { HostParamsParsed, HostResult } from '@shared/contracts/host-api';
import { MAX_LISTED_UNREVIEWED, MAX_REPLAYED_ROUNDS } from '@shared/contracts/profile-replay';
import { roundNumber } from '@shared/contracts/round-number';
import type { EventJournal } from '../../events/event-journal';
import { collectRounds } from './collect-rounds';
import { replayProfile } from './profile-replay';
import { unreviewedWords } from './verdict-words';

/** Runs one replay reads at most, newest first: the answer stays quick on a long history. */
export const MAX_REPLAYED_RUNS = 5_000;

/**
 * `verdicts.replay_profile`: the Settings screen's "Replay past verdicts" on a supervision profile,
 * the check `steward eval verdicts --profile FILE` makes (profile-replay.ts), over the host's
 * history, with no model call. The rounds come back in words, the teacher's catches first.
 */
export function profileReplayHandlers(journal: Pick<EventJournal, 'runsPage' | 'runEvents'>) {
  return {
    'verdicts.replay_profile': async ({ profile, limit }: HostParamsParsed<'verdicts.replay_profile'>): Promise<HostResult<'verdicts.replay_profile'>> => {
      // The contract lets only a supervision profile through; narrowed here for its settings.
      if (profile.kind !== 'supervision') throw new Error('only a supervision profile has review rules to replay');
      const read = collectRounds(journal, (r) => r.record.review !== undefined, limit ?? MAX_REPLAYED_ROUNDS, MAX_REPLAYED_RUNS);
      const replay = replayProfile(read.rounds, { label: `${profile.name} v${profile.version}`, supervision: profile.supervision });
      return {
        profile: `${profile.name} v${profile.version}`,
        rounds: read.rounds.length,
        runs: read.runs,
        reviewed: replay.reviewed,
        newly_reviewed: replay.newly_reviewed,
        catches_lost: replay.unreviewed.filter((u) => u.catch_lost).length,
        unreviewed: replay.unreviewed.length,
        no_longer_reviewed: replay.unreviewed.slice(0, MAX_LISTED_UNREVIEWED).map((u) => ({
          run_id: u.round.run_id,
          ...(u.round.invocation_id !== undefined ? { invocation_id: u.round.invocation_id } : {}),
          spec_name: u.round.spec_name,
          started_at: u.round.started_at,
          round: roundNumber(u.round.round),
          protected: u.round.protected,
          catch_lost: u.catch_lost,
          ...(u.round.verdict ? { verdict: u.round.verdict.verdict } : {}),
          words: unreviewedWords(u),
        })),
        truncated: read.truncated,
      };
    },
  };
}
