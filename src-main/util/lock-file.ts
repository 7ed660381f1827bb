import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { z } from 'zod';

/**
 * An exclusive lock file: created with O_CREAT|O_EXCL (`wx`), so of two processes creating it at
 * once exactly one succeeds. It names its holder; a lock whose process is gone from this machine is
 * stale and may be taken over. Node has no flock(), and this also tells a person who holds it.
 */
export const LockRecord = z
  .object({
    /** Random per acquisition: release removes the file only while it is still this one. */
    id: z.string().min(8),
    pid: z.number().int().positive(),
    hostname: z.string(),
    started_at: z.string(),
    shell: z.string().optional(),
    port: z.number().int().positive().optional(),
  })
  .strict();
export type LockRecord = z.infer<typeof LockRecord>;

export type LockAttempt =
  | { kind: 'acquired'; holder: LockRecord }
  | { kind: 'held'; holder: LockRecord }
  /** A file that is not (yet) a lock record: another process between create and write, or a crash there. */
  | { kind: 'unreadable'; ageMs: number };

export function newLockRecord(extra: Pick<LockRecord, 'shell' | 'port'> = {}): LockRecord {
  return {
    id: randomBytes(12).toString('base64url'),
    pid: process.pid,
    hostname: hostname(),
    started_at: new Date().toISOString(),
    ...(extra.shell === undefined ? {} : { shell: extra.shell }),
    ...(extra.port === undefined ? {} : { port: extra.port }),
  };
}

/** One attempt: create the file exclusively, or report who holds it. */
export function tryLock(path: string, record: LockRecord): LockAttempt {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if (codeOf(error) !== 'EEXIST') throw error;
    return readHolder(path);
  }
  try {
    writeSync(fd, JSON.stringify(record));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { kind: 'acquired', holder: record };
}

function readHolder(path: string): LockAttempt {
  let text: string;
  let ageMs: number;
  try {
    ageMs = Date.now() - statSync(path).mtimeMs;
    text = readFileSync(path, 'utf8');
  } catch (error) {
    // Released between our create and our read: report it as a fresh file, the caller retries.
    if (codeOf(error) === 'ENOENT') return { kind: 'unreadable', ageMs: 0 };
    throw error;
  }
  try {
    const parsed = LockRecord.safeParse(JSON.parse(text));
    if (parsed.success) return { kind: 'held', holder: parsed.data };
  } catch {
    // Not JSON (yet): fall through.
  }
  return { kind: 'unreadable', ageMs };
}

/** Whether the holder's process is certainly gone: same machine and no such pid. Elsewhere we cannot tell. */
export function isStale(holder: LockRecord): boolean {
  return holder.hostname === hostname() && processGone(holder.pid);
}

/** No process with this pid exists on this machine (signal 0 only checks). */
export function processGone(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; it is alive.
    return codeOf(error) === 'ESRCH';
  }
}

/**
 * Removes a stale lock, but only if it is still the one judged stale: it is first moved aside
 * (rename is atomic), then checked; a lock someone took meanwhile is put back (link never
 * overwrites). Returns whether the caller may try to create the lock again.
 */
export function removeStale(path: string, judged: LockRecord | null): boolean {
  const aside = `${path}.stale-${process.pid}-${randomBytes(6).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return true;
    throw error;
  }
  const moved = readHolder(aside);
  const same = judged === null ? moved.kind === 'unreadable' : moved.kind === 'held' && moved.holder.id === judged.id;
  if (!same) {
    try {
      linkSync(aside, path);
    } catch {
      // Someone created a new lock in the meantime: theirs stands.
    }
  }
  rmSync(aside, { force: true });
  return same;
}

/** Removes the lock file if it is still `mine`. */
export function unlock(path: string, mine: LockRecord): void {
  const current = readHolder(path);
  if (current.kind === 'held' && current.holder.id === mine.id) rmSync(path, { force: true });
}

export function describeHolder(holder: LockRecord): string {
  const shell = holder.shell ? `the ${holder.shell} shell` : 'a Steward process';
  const port = holder.port ? ` on port ${holder.port}` : '';
  return `${shell}${port} (pid ${holder.pid} on ${holder.hostname}, started ${holder.started_at})`;
}

/** Blocks the thread briefly (the ledger's API is synchronous). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function codeOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}
