import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { processGone } from '../util/lock-file';
import { migrateCheckpointFiles } from './checkpoint-files';
import type { HistoryDb } from './history-db';

/**
 * Runs waiting for a person, in the history database's `waiting` table (issue 26: one durable write
 * per round): one row per run and kind, its checkpoint validated by `schema` whenever it is written
 * or read back. Where its writes commit is the caller's (CheckpointWrites): in the host and in a
 * steward command, the journal writer's `commit`, so a checkpoint is stored in one transaction with
 * the run's pending events — the events before it are durable with it, and a run is never resumed
 * past a missing event. A command that only reads (or a test) commits each write on its own.
 *
 * Claiming is a row update in an IMMEDIATE transaction (`claimed_by` empty → this claim): SQLite's
 * write lock makes it exclusive across processes (the host and a `steward answer`), so of two
 * answers exactly one resumes the run. A claimed row is not listed as waiting. A claim lasts one
 * turn of its process's event loop (claim, launch the resumed run, remove); one left by a process
 * that ended — or older than a minute, whoever has its pid now — is given back at the next open.
 */

/** Agent runs (engine/checkpoint.ts) and workflow runs (workflow/workflow-checkpoint.ts). */
export type WaitingKind = 'agent' | 'workflow';

/** How the store's writes are committed. */
export interface CheckpointWrites {
  /** Runs `step` in an IMMEDIATE transaction committed with a sync before this returns; `step`'s error is thrown as is. */
  now(step: () => void): void;
}

/** A checkpoint taken for resuming: nobody else can take it until it is given back. */
export interface ClaimedCheckpoint<T> {
  checkpoint: T;
  /** The resumed run is under way: the checkpoint is spent. */
  remove(): void;
  /** The resume did not start: the run waits again, as before. */
  restore(): void;
}

/** A waiting run could not be kept: the run does not look kept (it stops, or the request fails). */
export class CheckpointError extends Error {
  constructor(
    readonly code: 'checkpoint_invalid' | 'checkpoint_write_failed',
    readonly runId: string,
    reason: string,
  ) {
    super(
      code === 'checkpoint_invalid'
        ? `the checkpoint of the waiting run ${runId} is not valid (${reason}); it was not stored`
        : `the waiting run ${runId} could not be written to the history database (${reason}); nothing of this write was stored`,
    );
    this.name = 'CheckpointError';
  }
}

export interface CheckpointTableOptions<T> {
  kind: WaitingKind;
  schema: z.ZodType<T>;
  /** The folder of JSON checkpoints an older Steward kept: moved into the table at the first open. */
  legacyDir?: string;
  log?: (line: string) => void;
}

/** A claim older than this was left by a crash, whatever its pid says now (a pid is reused). */
const CLAIM_LIFETIME_MS = 60_000;

interface Row {
  run_id: string;
  body: string;
}

export class CheckpointTable<T extends { run_id: string }> {
  private readonly kind: WaitingKind;
  private readonly schema: z.ZodType<T>;
  private readonly log: (line: string) => void;
  private readonly sql;

  constructor(
    db: HistoryDb,
    private readonly writes: CheckpointWrites,
    options: CheckpointTableOptions<T>,
  ) {
    this.kind = options.kind;
    this.schema = options.schema;
    this.log = options.log ?? (() => undefined);
    this.sql = {
      save: db.prepare<[string, string, string, string]>(
        `INSERT INTO waiting (kind, run_id, body, saved_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (kind, run_id) DO UPDATE SET body = excluded.body, saved_at = excluded.saved_at, claimed_by = NULL, claimed_at = NULL`,
      ),
      keep: db.prepare<[string, string, string, string]>('INSERT OR IGNORE INTO waiting (kind, run_id, body, saved_at) VALUES (?, ?, ?, ?)'),
      waiting: db.prepare<[string], Row>('SELECT run_id, body FROM waiting WHERE kind = ? AND claimed_by IS NULL ORDER BY run_id'),
      get: db.prepare<[string, string], Row>('SELECT run_id, body FROM waiting WHERE kind = ? AND run_id = ? AND claimed_by IS NULL'),
      take: db.prepare<[string, string, string, string]>('UPDATE waiting SET claimed_by = ?, claimed_at = ? WHERE kind = ? AND run_id = ? AND claimed_by IS NULL'),
      bodyOf: db.prepare<[string, string, string], { body: string }>('SELECT body FROM waiting WHERE kind = ? AND run_id = ? AND claimed_by = ?'),
      giveBack: db.prepare<[string, string, string]>('UPDATE waiting SET claimed_by = NULL, claimed_at = NULL WHERE kind = ? AND run_id = ? AND claimed_by = ?'),
      dropClaimed: db.prepare<[string, string, string]>('DELETE FROM waiting WHERE kind = ? AND run_id = ? AND claimed_by = ?'),
      drop: db.prepare<[string, string]>('DELETE FROM waiting WHERE kind = ? AND run_id = ? AND claimed_by IS NULL'),
      claims: db.prepare<[string], { run_id: string; claimed_by: string; claimed_at: string | null }>(
        'SELECT run_id, claimed_by, claimed_at FROM waiting WHERE kind = ? AND claimed_by IS NOT NULL',
      ),
    };
    if (options.legacyDir !== undefined) {
      migrateCheckpointFiles(options.legacyDir, {
        db,
        kind: this.kind,
        schema: this.schema,
        insert: (checkpoint) => this.sql.keep.run(this.kind, checkpoint.run_id, JSON.stringify(checkpoint), new Date().toISOString()),
        log: this.log,
      });
    }
    this.giveBackOrphans();
  }

  /** Stores the run's checkpoint (replacing the one it had, and any claim of it), committed with the run's pending events. */
  save(checkpoint: T): void {
    const parsed = this.schema.safeParse(checkpoint);
    if (!parsed.success) throw new CheckpointError('checkpoint_invalid', checkpoint.run_id, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    const body = JSON.stringify(parsed.data);
    this.write(checkpoint.run_id, () => this.sql.save.run(this.kind, checkpoint.run_id, body, new Date().toISOString()));
  }

  /**
   * Takes the checkpoint for resuming: the row's claim is set only where it is empty, under the
   * database's write lock, so of two processes answering the same run exactly one gets it.
   * Undefined when the run does not wait (any more) or someone else claimed it first.
   */
  claim(runId: string): ClaimedCheckpoint<T> | undefined {
    const claim = `${process.pid}:${randomBytes(6).toString('hex')}`;
    let body: string | undefined;
    this.write(runId, () => {
      if (this.sql.take.run(claim, new Date().toISOString(), this.kind, runId).changes === 1) body = this.sql.bodyOf.get(this.kind, runId, claim)?.body;
    });
    if (body === undefined) return undefined;
    const checkpoint = this.parse(runId, body);
    if (!checkpoint) {
      // Left as it is, waiting: a person (or a newer Steward) decides what it means.
      this.giveBack(runId, claim);
      return undefined;
    }
    return {
      checkpoint,
      // Only this claim's row: a newer checkpoint saved meanwhile (the resumed run waits again) stays.
      remove: () => this.settle(runId, () => this.sql.dropClaimed.run(this.kind, runId, claim), 'removed'),
      restore: () => this.giveBack(runId, claim),
    };
  }

  /** Every valid checkpoint of a run waiting (not claimed); a damaged one is reported and left in place, never dropped silently. */
  list(log: (line: string) => void = this.log): T[] {
    const found: T[] = [];
    for (const row of this.sql.waiting.all(this.kind)) {
      const checkpoint = this.parse(row.run_id, row.body, log);
      if (checkpoint) found.push(checkpoint);
    }
    return found;
  }

  get(runId: string): T | undefined {
    const row = this.sql.get.get(this.kind, runId);
    return row ? this.parse(runId, row.body, () => undefined) : undefined;
  }

  /** The run does not wait any more (it ended after all): its checkpoint, unless claimed, is void. */
  delete(runId: string): void {
    this.write(runId, () => this.sql.drop.run(this.kind, runId));
  }

  private write(runId: string, step: () => void): void {
    try {
      this.writes.now(step);
    } catch (error) {
      throw error instanceof CheckpointError ? error : new CheckpointError('checkpoint_write_failed', runId, error instanceof Error ? error.message : String(error));
    }
  }

  private giveBack(runId: string, claim: string): void {
    // Where a newer checkpoint was saved meanwhile, the claim is gone already: nothing to give back.
    this.settle(runId, () => this.sql.giveBack.run(this.kind, runId, claim), 'given back');
  }

  /** Ends a claim. It cannot fail the answer it ends: a claim left behind is given back at the next open. */
  private settle(runId: string, step: () => void, what: string): void {
    try {
      this.writes.now(step);
    } catch (error) {
      this.log(`the claim of the waiting run ${runId} could not be ${what} (${error instanceof Error ? error.message : String(error)}); it is given back at the next start`);
    }
  }

  private parse(runId: string, body: string, log: (line: string) => void = this.log): T | undefined {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch (error) {
      log(`waiting run ${runId} could not be read and is left as it is: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
    const parsed = this.schema.safeParse(json);
    if (parsed.success) return parsed.data;
    log(`waiting run ${runId} could not be read and is left as it is: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return undefined;
  }

  /** Claims whose process ended before the run resumed: the run is still waiting. Writes only when there is one. */
  private giveBackOrphans(): void {
    for (const row of this.sql.claims.all(this.kind)) {
      const pid = Number(/^(\d+):/.exec(row.claimed_by)?.[1] ?? Number.NaN);
      const age = row.claimed_at === null ? Number.POSITIVE_INFINITY : Date.now() - Date.parse(row.claimed_at);
      const ended = processGone(pid);
      if (!ended && !(age > CLAIM_LIFETIME_MS)) continue;
      this.giveBack(row.run_id, row.claimed_by);
      this.log(`gave back the waiting run ${row.run_id}: the process that took it (pid ${Number.isNaN(pid) ? '?' : pid}) ${ended ? 'ended' : 'held it for over a minute, so it ended'} before resuming it`);
    }
  }
}
