import { z } from 'zod';
import { ModelRef } from '../contracts/model';
import { DeploymentSettings } from '../contracts/profiles';
import { LifecyclePhase } from '../contracts/spec';
import { TrialReport } from './trial-contract';

/**
 * The host routes of a student trial (issue 31): the Learning screen's "Try another student…"
 * starts one (`trial.start`) and follows it (`trial.status`) until its report is in. The trial is a
 * run of its own in the history, so Runs lists it too.
 */

/** Rounds one trial replays at most. */
export const MAX_TRIAL_ROUNDS = 10_000;
export const DEFAULT_TRIAL_ROUNDS = 200;

const Id = z.string().min(1).max(200);

export const TrialTargetParam = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('spec'), spec_id: Id }).strict(),
  z.object({ kind: z.literal('node'), workflow_id: Id, node_id: Id }).strict(),
]);

export const TrialStartParams = z
  .object({
    target: TrialTargetParam,
    /** The candidate student; the host refuses, in words, a model its privacy policy does not allow. */
    student: ModelRef,
    rounds: z.number().int().min(1).max(MAX_TRIAL_ROUNDS).default(DEFAULT_TRIAL_ROUNDS),
    /** The node's phase and promotion rules as the page resolved them (absent: the host's kept profile, or the recorded phase). */
    phase: LifecyclePhase.optional(),
    promotion: DeploymentSettings.shape.promotion.unwrap().optional(),
  })
  .strict();

export const TrialStartResult = z.discriminatedUnion('started', [
  z.object({ started: z.literal(true), run_id: z.string(), rounds: z.number().int().positive(), title: z.string() }).strict(),
  /** Nothing to replay, or a candidate the host will not ask: why, in words. Nothing was sent to any model. */
  z.object({ started: z.literal(false), message: z.string() }).strict(),
]);
export type TrialStartResult = z.infer<typeof TrialStartResult>;

export const TrialStatusResult = z
  .object({
    run_id: z.string(),
    state: z.enum(['running', 'completed', 'failed', 'cancelled']),
    title: z.string(),
    done: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
    report: TrialReport.optional(),
    /** Why it ended without a report. */
    message: z.string().optional(),
  })
  .strict();
export type TrialStatusResult = z.infer<typeof TrialStatusResult>;
