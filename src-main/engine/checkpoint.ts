import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { HistoryEntry } from '@shared/contracts/history';
import { Intervention } from '@shared/contracts/intervention';
import { LearningDataSettings, ProfileKind, ProfileVersionRef, TraceSettings } from '@shared/contracts/profiles';
import { ModelScript } from '@shared/contracts/script';
import { AgentSpec } from '@shared/contracts/spec';
import { PrivacyPolicy } from '@shared/policy/privacy';
import { ScsMode } from '@shared/scs/contracts';

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
    next_round: z.number().int().nonnegative(),
    next_seq: z.number().int().nonnegative(),
    rounds_before: z.number().int().nonnegative(),
    history: z.array(HistoryEntry),
    consecutive_failures: z.number().int().nonnegative(),
    takeover_left: z.number().int().nonnegative(),
    delivered: z.array(z.string()),
    intervention: Intervention,
    /** SCS state when it was decided for the run: the machine's persisted snapshot and the replay positions. */
    scs: z
      .object({
        base: z.object({ mode: ScsMode, active: z.boolean(), reason: z.string(), model: z.string() }).strict(),
        snapshot: z.unknown(),
        positions: z.object({ committee: z.number().int().nonnegative(), monitor: z.number().int().nonnegative() }).strict(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type RunCheckpoint = z.infer<typeof RunCheckpoint>;

/** The folder of waiting runs (one JSON file per run) in the user-data folder. */
export class CheckpointStore {
  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  save(checkpoint: RunCheckpoint): void {
    const file = this.fileOf(checkpoint.run_id);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(RunCheckpoint.parse(checkpoint)));
    renameSync(temp, file);
  }

  /** Every valid checkpoint; a damaged file is reported and left in place (never silently dropped). */
  list(log: (line: string) => void = () => undefined): RunCheckpoint[] {
    const found: RunCheckpoint[] = [];
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.json')) continue;
      try {
        found.push(RunCheckpoint.parse(JSON.parse(readFileSync(join(this.dir, name), 'utf8'))));
      } catch (err) {
        log(`waiting run ${name} could not be read and is left as it is: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return found;
  }

  get(runId: string): RunCheckpoint | undefined {
    try {
      return RunCheckpoint.parse(JSON.parse(readFileSync(this.fileOf(runId), 'utf8')));
    } catch {
      return undefined;
    }
  }

  delete(runId: string): void {
    rmSync(this.fileOf(runId), { force: true });
  }

  private fileOf(runId: string): string {
    if (!/^[A-Za-z0-9_.:-]+$/.test(runId)) throw new Error(`not a run id: ${runId}`);
    return join(this.dir, `${runId.replaceAll(':', '_')}.json`);
  }
}
