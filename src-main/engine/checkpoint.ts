import { z } from 'zod';
import { HistoryEntry } from '@shared/contracts/history';
import { Intervention } from '@shared/contracts/intervention';
import { ChatMessage } from '@shared/contracts/model';
import { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { ServerInputWait } from '@shared/contracts/server-input';
import { LearningDataSettings, ProfileKind, ProfileVersionRef, TraceSettings } from '@shared/contracts/profiles';
import { ModelScript } from '@shared/contracts/script';
import { AgentSpec } from '@shared/contracts/spec';
import { PrivacyPolicy } from '@shared/policy/privacy';
import { ScsMode } from '@shared/scs/contracts';
import { ClaimFacts } from '@shared/boundary/final-answer-check';
import type { HistoryDb } from '../events/history-db';
import { CheckpointTable, type CheckpointWrites } from '../events/checkpoint-table';
import { SealedBox } from '../workflow/sealed-box';

/**
 * A run waiting for a person, in the history database: everything needed to continue it exactly
 * where it stopped, in this process or after a restart. Written when the run starts to wait (in one
 * transaction with the run's events before it); removed when it resumes.
 * It holds the canonical history (selected decisions and their, already secret-masked, results),
 * never a credential value: those are resolved from the keychain again on resume. A sensitive
 * argument's value is kept only sealed (`sealed`).
 */
export const RunCheckpoint = z
  .object({
    version: z.literal(1),
    run_id: z.string().min(8),
    saved_at: z.string(),
    spec: AgentSpec,
    spec_dir: z.string(),
    workspace: z.string().optional(),
    script: ModelScript.optional(),
    script_positions: z.object({ student: z.number().int().nonnegative(), teacher: z.number().int().nonnegative() }).strict(),
    privacy: PrivacyPolicy.optional(),
    trace: TraceSettings.optional(),
    learning: LearningDataSettings.optional(),
    profiles: z.partialRecord(ProfileKind, ProfileVersionRef).default({}),
    dry_run: z.boolean().default(false),
    /** A replay's recorded run (run.started's replay_of): a resumed replay samples as that run did. */
    replay_of: z.string().min(1).optional(),
    next_round: z.number().int().nonnegative(),
    next_seq: z.number().int().nonnegative(),
    rounds_before: z.number().int().nonnegative(),
    history: z.array(HistoryEntry),
    consecutive_failures: z.number().int().nonnegative(),
    takeover_left: z.number().int().nonnegative(),
    delivered: z.array(z.string()),
    intervention: Intervention,
    /** The waiting round's tools: a person's edited arguments are validated against them before the run resumes. */
    tool_snapshot: ToolSnapshot.optional(),
    /** The student's prompt of the waiting round: a person's approval with edits teaches with it. */
    prompt: z.array(ChatMessage).optional(),
    /** SCS state when it was decided for the run: the machine's persisted snapshot and the replay positions. */
    scs: z
      .object({
        base: z.object({ mode: ScsMode, active: z.boolean(), reason: z.string(), model: z.string() }).strict(),
        snapshot: z.unknown(),
        positions: z.object({ committee: z.number().int().nonnegative(), monitor: z.number().int().nonnegative() }).strict(),
      })
      .strict()
      .optional(),
    /** A call paused by its server's input request (issue 30): what continues it once the person answers. */
    server_input: ServerInputWait.optional(),
    /** What the run refused and ran before it waited: a later final answer is checked against it. */
    claims: ClaimFacts.optional(),
    /**
     * A run that waits holding a sensitive argument's value (issue 27): its history, the waiting call,
     * prompt, script and SCS state sealed under a keychain key (sealed-run-checkpoint.ts); the fields
     * in the clear then hold the question as a page is shown it, masked.
     */
    sealed: SealedBox.optional(),
  })
  .strict();
export type RunCheckpoint = z.infer<typeof RunCheckpoint>;

/** The agent runs waiting for a person (the `waiting` table's `agent` rows; events/checkpoint-table.ts). */
export class CheckpointStore extends CheckpointTable<RunCheckpoint> {
  /** `legacyDir`: the `waiting-runs/` folder an older Steward kept, moved in at the first open. */
  constructor(db: HistoryDb, writes: CheckpointWrites, options: { legacyDir?: string; log?: (line: string) => void } = {}) {
    super(db, writes, { kind: 'agent', schema: RunCheckpoint, ...options });
  }
}
