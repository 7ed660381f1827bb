import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { HistoryEntry } from '@shared/contracts/history';
import { Intervention } from '@shared/contracts/intervention';
import { ChatMessage } from '@shared/contracts/model';
import { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { LearningDataSettings, ProfileKind, ProfileVersionRef, TraceSettings } from '@shared/contracts/profiles';
import { ModelScript } from '@shared/contracts/script';
import { AgentSpec } from '@shared/contracts/spec';
import { PrivacyPolicy } from '@shared/policy/privacy';
import { ScsMode } from '@shared/scs/contracts';
import { ClaimFacts } from '@shared/boundary/final-answer-check';
import { processGone } from '../util/lock-file';

/**
 * A run waiting for a person, on disk: everything needed to continue it exactly where it stopped,
 * in this process or after a restart. Written when the run starts to wait; removed when it resumes.
 * It holds the canonical history (selected decisions and their, already secret-masked, results),
 * never a credential value: those are resolved from the keychain again on resume.
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
    /** What the run refused and ran before it waited: a later final answer is checked against it. */
    claims: ClaimFacts.optional(),
  })
  .strict();
export type RunCheckpoint = z.infer<typeof RunCheckpoint>;

/** A checkpoint taken for resuming: nobody else can take it until it is given back. */
export interface ClaimedCheckpoint<T = RunCheckpoint> {
  checkpoint: T;
  /** The resumed run is under way: the checkpoint is spent. */
  remove(): void;
  /** The resume did not start: the run waits again, as before. */
  restore(): void;
}

const CLAIMED = /^(.+\.json)\.claimed-(\d+)-[0-9a-f]+$/;

/**
 * A folder of waiting runs (one JSON file per run, checked against `schema` whenever read or
 * written) in the user-data folder: agent runs (CheckpointStore) and workflow runs alike.
 */
export class JsonCheckpointStore<T extends { run_id: string }> {
  constructor(
    private readonly dir: string,
    private readonly schema: z.ZodType<T>,
    log: (line: string) => void = () => undefined,
  ) {
    mkdirSync(dir, { recursive: true });
    this.giveBackOrphans(log);
  }

  /**
   * Takes the checkpoint by renaming it to a name only this process uses: a rename of one file
   * succeeds once, so of two hosts answering the same run exactly one resumes it.
   */
  claim(runId: string): ClaimedCheckpoint<T> | undefined {
    const file = this.fileOf(runId);
    const claimed = `${file}.claimed-${process.pid}-${randomBytes(6).toString('hex')}`;
    try {
      renameSync(file, claimed);
    } catch {
      return undefined; // gone, or someone else claimed it first
    }
    let checkpoint: T;
    try {
      checkpoint = this.schema.parse(JSON.parse(readFileSync(claimed, 'utf8')));
    } catch {
      giveBack(claimed, file);
      return undefined;
    }
    return { checkpoint, remove: () => rmSync(claimed, { force: true }), restore: () => giveBack(claimed, file) };
  }

  save(checkpoint: T): void {
    const file = this.fileOf(checkpoint.run_id);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(this.schema.parse(checkpoint)));
    renameSync(temp, file);
  }

  /** Every valid checkpoint; a damaged file is reported and left in place (never silently dropped). */
  list(log: (line: string) => void = () => undefined): T[] {
    const found: T[] = [];
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.json')) continue;
      try {
        found.push(this.schema.parse(JSON.parse(readFileSync(join(this.dir, name), 'utf8'))));
      } catch (err) {
        log(`waiting run ${name} could not be read and is left as it is: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return found;
  }

  get(runId: string): T | undefined {
    try {
      return this.schema.parse(JSON.parse(readFileSync(this.fileOf(runId), 'utf8')));
    } catch {
      return undefined;
    }
  }

  delete(runId: string): void {
    rmSync(this.fileOf(runId), { force: true });
  }

  /** A claim whose process died before the run resumed: the run is still waiting. */
  private giveBackOrphans(log: (line: string) => void): void {
    for (const name of readdirSync(this.dir)) {
      const match = CLAIMED.exec(name);
      if (!match?.[1] || !processGone(Number(match[2]))) continue;
      giveBack(join(this.dir, name), join(this.dir, match[1]));
      log(`gave back the waiting run ${match[1]}: the process that took it (pid ${match[2]}) ended before resuming it`);
    }
  }

  private fileOf(runId: string): string {
    if (!/^[A-Za-z0-9_.:-]+$/.test(runId)) throw new Error(`not a run id: ${runId}`);
    return join(this.dir, `${runId.replaceAll(':', '_')}.json`);
  }
}

/** The folder of agent runs waiting for a person. */
export class CheckpointStore extends JsonCheckpointStore<RunCheckpoint> {
  constructor(dir: string, log: (line: string) => void = () => undefined) {
    super(dir, RunCheckpoint, log);
  }
}

/** Puts a claimed checkpoint back under its own name, never over a newer one (link does not overwrite). */
function giveBack(claimed: string, file: string): void {
  try {
    if (!existsSync(file)) linkSync(claimed, file);
  } catch {
    // A checkpoint of the same name appeared meanwhile: it is the newer state.
  }
  rmSync(claimed, { force: true });
}
