import { z } from 'zod';
import { Profile } from './profiles';
import { Verdict } from './verdict';

/**
 * A supervision profile put to the history's recorded rounds with no model call (issue 31; the
 * Settings screen's "Replay past verdicts", as `steward eval verdicts --profile`): which rounds the
 * teacher reviewed then that these review rules would no longer send to it, the ones the teacher
 * stopped first (on a protected effect before the rest).
 */

/** Reviewed rounds one replay reads at most (the newest); the CLI has no such bound. */
export const MAX_REPLAYED_ROUNDS = 5_000;
/** Rounds no longer reviewed that one answer lists (the counts cover them all). */
export const MAX_LISTED_UNREVIEWED = 200;

export const ProfileReplayParams = z
  .object({
    profile: Profile.refine((p) => p.kind === 'supervision', { message: 'only a supervision profile has review rules to replay' }),
    limit: z.number().int().min(1).max(MAX_REPLAYED_ROUNDS).optional(),
  })
  .strict();

export const UnreviewedRoundView = z
  .object({
    run_id: z.string(),
    invocation_id: z.string().optional(),
    spec_name: z.string(),
    started_at: z.string(),
    /** Counted from 1, as every screen counts rounds. */
    round: z.number().int().positive(),
    protected: z.boolean(),
    /** The teacher blocked, replaced or escalated it then: a catch these rules would lose. */
    catch_lost: z.boolean(),
    verdict: Verdict.optional(),
    /** What happened then and what these rules would do, in words. */
    words: z.string(),
  })
  .strict();
export type UnreviewedRoundView = z.infer<typeof UnreviewedRoundView>;

export const ProfileReplayResult = z
  .object({
    /** "Strict review v2". */
    profile: z.string(),
    /** Reviewed rounds read (newest first), and the runs they came from. */
    rounds: z.number().int().nonnegative(),
    runs: z.number().int().nonnegative(),
    reviewed: z.number().int().nonnegative(),
    /** Rounds not reviewed then that these rules would review. */
    newly_reviewed: z.number().int().nonnegative(),
    catches_lost: z.number().int().nonnegative(),
    /** Every round no longer reviewed (catches of a protected effect first), at most MAX_LISTED_UNREVIEWED. */
    no_longer_reviewed: z.array(UnreviewedRoundView).max(MAX_LISTED_UNREVIEWED),
    /** How many in all (the list may stop short). */
    unreviewed: z.number().int().nonnegative(),
    /** The history holds more than one replay reads: these are the newest. */
    truncated: z.boolean(),
  })
  .strict();
export type ProfileReplayResult = z.infer<typeof ProfileReplayResult>;
