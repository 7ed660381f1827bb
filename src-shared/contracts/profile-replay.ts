import { z } from 'zod';
import { Profile } from './profiles';
import { JudgeVerdict, JudgmentVerdict } from '../pattern/contracts';
import { TeacherVerdict, Verdict } from './verdict';

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

/** Where a recorded round was: its run (and agent node), the agent's name, when the run started, the round. */
const RecordedRoundPlace = z.object({
  run_id: z.string(),
  invocation_id: z.string().optional(),
  spec_name: z.string(),
  started_at: z.string(),
  /** Counted from 1, as every screen counts rounds. */
  round: z.number().int().positive(),
});

export const UnreviewedRoundView = RecordedRoundPlace
  .extend({
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

/**
 * A teacher profile's model put to the history's recorded teacher verdicts (issue 31; the Settings
 * screen's "Replay past verdicts" on a teacher profile, as `steward eval verdicts --teacher MODEL`):
 * each recorded review goes to the candidate through the engine's own review prompt (no tool is
 * executed) and every verdict that flips is listed, a past stop of a protected effect that would now
 * be accepted first. It calls a model for each case, so it runs in the background, one at a time.
 */

/** Recorded teacher verdicts one replay puts to the candidate at most (the newest). */
export const MAX_TEACHER_REPLAY_CASES = 1_000;
/** Flips one answer lists (the counts cover them all). */
export const MAX_LISTED_FLIPS = 200;

/** How a verdict flips, worst first (replay-verdicts.ts says each). */
export const VERDICT_FLIP_KINDS = ['catch_lost', 'stricter', 'changed', 'no_verdict'] as const;
export const VerdictFlipKind = z.enum(VERDICT_FLIP_KINDS);
export type VerdictFlipKind = z.infer<typeof VerdictFlipKind>;

export const TeacherReplayParams = z
  .object({
    profile: Profile.refine((p) => p.kind === 'teacher', { message: 'only a teacher profile has a model to put the past verdicts to' }),
    limit: z.number().int().min(1).max(MAX_TEACHER_REPLAY_CASES).optional(),
  })
  .strict();

export const VerdictFlipView = RecordedRoundPlace
  .extend({
    kind: VerdictFlipKind,
    protected: z.boolean(),
    /** The recorded teacher (or the person who decided the round) stopped a protected effect here and the candidate would accept it. */
    protected_catch_lost: z.boolean(),
    /** The verdict the boundary acted on: the recorded teacher's, or a person's answer turned into one (approve → accept, edited → replace, reject or stop → block). */
    past: TeacherVerdict,
    /** Who gave `past`: the recorded teacher, or a person who answered its escalation or a tool's confirmation (absent: the teacher). */
    decided_by: z.enum(['teacher', 'person']).optional(),
    now: TeacherVerdict.optional(),
    /** Why the candidate's answer could not be used. */
    problem: z.string().optional(),
    /** What a person answered when the round waited for one. */
    person: z.string().optional(),
    /** What happened then and what the candidate would do, in words. */
    words: z.string(),
  })
  .strict();
export type VerdictFlipView = z.infer<typeof VerdictFlipView>;

/** A pattern node's judgment that flips under the candidate (seed 002): asked with the judge's recorded prompt. */
export const JudgmentFlipView = z
  .object({
    run_id: z.string(),
    /** The pattern node's invocation. */
    invocation_id: z.string(),
    /** The workflow's name. */
    spec_name: z.string(),
    started_at: z.string(),
    judgment_id: z.string(),
    /** Counted from 1, as the run view counts them. */
    step: z.number().int().positive(),
    iteration: z.number().int().positive(),
    kind: VerdictFlipKind,
    /** Who judged then: a model judge, a remote A2A agent, a person. */
    judge: z.enum(['llm', 'a2a', 'human']),
    past: JudgmentVerdict,
    now: JudgeVerdict.optional(),
    problem: z.string().optional(),
    words: z.string(),
  })
  .strict();
export type JudgmentFlipView = z.infer<typeof JudgmentFlipView>;

/** The pattern judgments put to the candidate beside the reviews: a judgment is no effect, so none of them is a protected catch. */
export const JudgmentReplayResult = z
  .object({
    cases: z.number().int().nonnegative(),
    agreeing: z.number().int().nonnegative(),
    flipped: z.number().int().nonnegative(),
    /** Outputs a judge or a person stopped that the candidate would approve. */
    approvals_gained: z.number().int().nonnegative(),
    /** Judgments recorded before Steward kept the judge's prompt: counted, not asked. */
    not_asked: z.number().int().nonnegative(),
    flips: z.array(JudgmentFlipView).max(MAX_LISTED_FLIPS),
  })
  .strict();
export type JudgmentReplayResult = z.infer<typeof JudgmentReplayResult>;

export const TeacherReplayResult = z
  .object({
    /** "Cautious teacher v2". */
    profile: z.string(),
    /** The candidate model, e.g. "ollama:qwen3:4b". */
    teacher: z.string(),
    /** Recorded teacher verdicts put to it (newest first), and the runs they came from. */
    cases: z.number().int().nonnegative(),
    runs: z.number().int().nonnegative(),
    agreeing: z.number().int().nonnegative(),
    flipped: z.number().int().nonnegative(),
    protected_catches_lost: z.number().int().nonnegative(),
    /** Every flip (protected-effect catches lost first), at most MAX_LISTED_FLIPS. */
    flips: z.array(VerdictFlipView).max(MAX_LISTED_FLIPS),
    /** The history holds more recorded verdicts than one replay puts: these are the newest. */
    truncated: z.boolean(),
    /** The pattern judgments (absent from a host before they were cases). */
    judgments: JudgmentReplayResult.optional(),
  })
  .strict();
export type TeacherReplayResult = z.infer<typeof TeacherReplayResult>;

export const TeacherReplayStart = z.discriminatedUnion('started', [
  z.object({ started: z.literal(true), total: z.number().int().nonnegative() }).strict(),
  z.object({ started: z.literal(false), message: z.string() }).strict(),
]);
export type TeacherReplayStart = z.infer<typeof TeacherReplayStart>;

export const TEACHER_REPLAY_STATES = ['idle', 'running', 'completed', 'cancelled', 'failed'] as const;

/** The replay under way or the last one (a cancelled or failed one with the cases it compared). */
export const TeacherReplayStatus = z
  .object({
    state: z.enum(TEACHER_REPLAY_STATES),
    /** The teacher profile replayed (absent while none ever ran). */
    profile_id: z.string().optional(),
    done: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
    /** The candidate model's label. */
    teacher: z.string().optional(),
    result: TeacherReplayResult.optional(),
    message: z.string().optional(),
  })
  .strict();
export type TeacherReplayStatus = z.infer<typeof TeacherReplayStatus>;
