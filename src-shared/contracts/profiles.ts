import { z } from 'zod';
import { ModelRef } from './model';
import { LifecyclePhase, SupervisionSpec } from './spec';
import { LearningKind } from './learning-export';

/**
 * Profiles (seed 000 "Profile selectors expose human-readable profile names, immutable versions"):
 * named, versioned settings a workflow's Supervision & Learning panel picks from. A version never
 * changes: editing a profile saves a new version, and every run records the versions it used.
 */
export const PROFILE_KINDS = ['student', 'teacher', 'supervision', 'trace', 'learning_data', 'deployment'] as const;
export const ProfileKind = z.enum(PROFILE_KINDS);
export type ProfileKind = z.infer<typeof ProfileKind>;

export const PROFILE_KIND_LABELS = {
  student: 'Student model',
  teacher: 'Teacher model',
  supervision: 'Supervision',
  trace: 'Trace',
  learning_data: 'Learning data',
  deployment: 'Deployment',
} satisfies Record<ProfileKind, string>;

export const ProfileVersionRef = z.object({ id: z.string().min(1), name: z.string(), version: z.number().int().positive() }).strict();
export type ProfileVersionRef = z.infer<typeof ProfileVersionRef>;

/** What a trace keeps. */
export const TraceSettings = z
  .object({
    /** Keep tool results in the trace (off: replaced by their size). */
    include_tool_results: z.boolean().default(true),
    /** Days a run's trace is kept after it finished; then the host deletes it, here and in every page (absent: forever). */
    retention_days: z.number().int().positive().optional(),
    /** Runs of the same workflow kept: when a newer one starts, the oldest beyond this many are deleted (absent: all). */
    retention_runs: z.number().int().positive().optional(),
  })
  .strict();
export type TraceSettings = z.infer<typeof TraceSettings>;

/** Which rounds become learning examples. */
export const LearningDataSettings = z
  .object({
    record: z.boolean().default(true),
    kinds: z.array(LearningKind).default(['review', 'shadow', 'demonstration']),
  })
  .strict();
export type LearningDataSettings = z.infer<typeof LearningDataSettings>;

/** The lifecycle phase, and when the app suggests promoting or demoting it. */
export const DeploymentSettings = z
  .object({
    phase: LifecyclePhase.default(3),
    promotion: z
      .object({
        /** Reviewed rounds in the window the metrics are computed over. */
        window: z.number().int().min(5).max(10_000).default(50),
        /** Fewest reviewed rounds before any suggestion. */
        min_examples: z.number().int().min(1).default(20),
        /** Suggest promotion at or above this agreement rate, with no protected-effect errors. */
        promote_agreement: z.number().min(0).max(1).default(0.9),
        /** Suggest demotion at or above this block rate, or on any protected-effect error. */
        demote_block_rate: z.number().min(0).max(1).default(0.2),
      })
      .strict()
      .default({ window: 50, min_examples: 20, promote_agreement: 0.9, demote_block_rate: 0.2 }),
  })
  .strict();
export type DeploymentSettings = z.infer<typeof DeploymentSettings>;

const profileBase = {
  id: z.string().min(1).max(80),
  name: z.string().min(1).max(120),
  version: z.number().int().positive(),
  created_at: z.string(),
  description: z.string().default(''),
};

export const Profile = z.discriminatedUnion('kind', [
  z.object({ ...profileBase, kind: z.literal('student'), model: ModelRef }).strict(),
  z.object({ ...profileBase, kind: z.literal('teacher'), model: ModelRef }).strict(),
  z.object({ ...profileBase, kind: z.literal('supervision'), supervision: SupervisionSpec.omit({ phase: true }) }).strict(),
  z.object({ ...profileBase, kind: z.literal('trace'), trace: TraceSettings }).strict(),
  z.object({ ...profileBase, kind: z.literal('learning_data'), learning: LearningDataSettings }).strict(),
  z
    .object({
      ...profileBase,
      kind: z.literal('deployment'),
      deployment: DeploymentSettings,
      /** The workflow whose phase this is (the phase is earned per workflow): its picker lists it, no other's does. Absent: any workflow's. */
      workflow_id: z.string().min(1).max(200).optional(),
      /** The agent node of that workflow whose phase this is (a workflow graph's node, issue 29). Absent: the workflow's own. */
      node_id: z.string().min(1).max(64).optional(),
    })
    .strict(),
]);
export type Profile = z.infer<typeof Profile>;

/** Profiles exported to / imported from a JSON file (no secrets: credentials are references). */
export const ProfileBundle = z
  .object({
    format: z.literal('steward-profiles/v1'),
    exported_at: z.string(),
    profiles: z.array(Profile),
  })
  .strict();
export type ProfileBundle = z.infer<typeof ProfileBundle>;
