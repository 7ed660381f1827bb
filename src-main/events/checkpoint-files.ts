import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { processGone } from '../util/lock-file';
import type { HistoryDb } from './history-db';

/**
 * Moves the checkpoints an older Steward kept as JSON files (`waiting-runs/`, `waiting-workflows/`:
 * one file per waiting run, `.claimed-PID-HEX` while a process resumed it) into the history
 * database's `waiting` table (issue 26), at the first open of each store. Each file is one
 * transaction that inserts its checkpoint and a mark naming the file, then the file is renamed
 * `.migrated` (a backup): killed in between, the next open finds the mark and only renames it, so
 * a run is moved once, never again after it was answered (two processes opening at once included).
 * A claim left by a process that ended is moved as waiting, as the file store gave it back; a file
 * that is not a valid checkpoint is renamed `.invalid` and named in the log (never dropped silently).
 */

/** A claimed file: `<run file>.claimed-<pid>-<hex>`. */
const CLAIMED = /^(.+\.json)\.claimed-(\d+)-[0-9a-f]+$/;

export interface CheckpointFilesTarget<T extends { run_id: string }> {
  db: HistoryDb;
  kind: string;
  schema: z.ZodType<T>;
  /** Inserts the checkpoint unless its run already has one (the table's is the newer state). */
  insert(checkpoint: T): void;
  log: (line: string) => void;
}

export function migrateCheckpointFiles<T extends { run_id: string }>(dir: string, target: CheckpointFilesTarget<T>): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return; // no folder: nothing was ever kept there
  }
  // A plain file first: of a run's claimed and plain files, the plain one is the newer state.
  const files = [...names.filter((n) => n.endsWith('.json')), ...names.filter((n) => claimedByTheDead(n, dir, target.log))];
  if (files.length === 0) return;
  const markOf = (name: string) => `waiting_moved:${target.kind}:${name}`;
  const marked = target.db.prepare<[string], { one: number }>('SELECT 1 AS one FROM meta WHERE key = ?');
  const mark = target.db.prepare<[string, string]>('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)');
  let moved = 0;
  for (const name of files) {
    const file = path.join(dir, name);
    const checkpoint = readCheckpoint(file, target.schema);
    if (checkpoint === 'gone') continue; // another process on the folder moved it meanwhile
    if (!checkpoint.ok) {
      setAside(file, `${file}.invalid`);
      target.log(`waiting run ${file} could not be read (${checkpoint.reason}); it was not moved into the history database and is kept as ${file}.invalid`);
      continue;
    }
    target.db
      .transaction(() => {
        if (marked.get(markOf(name))) return; // moved before (by this or another process): only the rename is left
        target.insert(checkpoint.value);
        mark.run(markOf(name), new Date().toISOString());
        moved += 1;
      })
      .immediate();
    setAside(file, `${file}.migrated`);
  }
  if (moved > 0) target.log(`moved ${moved} waiting run(s) from ${dir} into the history database; the files are kept there as *.migrated`);
}

/** A claimed file whose process ended before it resumed the run: the run still waits. */
function claimedByTheDead(name: string, dir: string, log: (line: string) => void): boolean {
  const match = CLAIMED.exec(name);
  if (!match) return false;
  if (processGone(Number(match[2]))) return true;
  log(`waiting run ${path.join(dir, name)} is being resumed by process ${match[2]} (an older Steward): left as it is`);
  return false;
}

function readCheckpoint<T>(file: string, schema: z.ZodType<T>): { ok: true; value: T } | { ok: false; reason: string } | 'gone' {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, reason: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
}

/** Renames, unless another process on the folder renamed it first. */
function setAside(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
