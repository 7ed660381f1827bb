import { closeSync, existsSync, fdatasyncSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { RunEvent } from '@shared/contracts/events';
import { interruptedEnd } from './interrupted-end';
import type { EventJournal } from './event-journal';
import { processGone } from '../util/lock-file';

/**
 * A `steward` command that runs with no Steward host on its data folder writes its run's events
 * here as they happen (issue 22), one JSON line each, and folds them into the journal when the run
 * ends. Killed midway, the spool stays: the next host start (or command) folds it and closes the
 * run as interrupted. The journal skips an event id it holds, so folding twice adds nothing.
 */
export const spoolDir = (dataDir: string) => join(dataDir, 'cli-runs');

/**
 * Whether a spool's command still writes it is told by a lock, not a pid (a pid is reused: a killed
 * command's spool whose pid now belongs to another process was never folded, and its run vanished).
 * The command holds an exclusive transaction on a small SQLite file of its own for as long as it
 * writes the spool; the operating system drops that lock the moment the process dies, however it
 * dies. Spools written before the lock existed are told by their pid, as before.
 */
const lockDir = (dataDir: string) => join(dataDir, 'cli-run-locks');
const lockPath = (dataDir: string, name: string) => join(lockDir(dataDir), `${name}.lock`);

/** `<pid>-<random>.jsonl`: the pid of the command that wrote it (for spools from before the lock). */
const SPOOL_NAME = /^(\d+)-[0-9a-f]{12}\.jsonl$/;

export interface RunSpool {
  readonly name: string;
  append(event: RunEvent): void;
  /** Makes what was appended durable (before a checkpoint, at the end). */
  sync(): void;
  close(): void;
  remove(): void;
}

export function openSpool(dataDir: string): RunSpool {
  mkdirSync(spoolDir(dataDir), { recursive: true });
  mkdirSync(lockDir(dataDir), { recursive: true });
  const name = `${process.pid}-${randomBytes(6).toString('hex')}.jsonl`;
  const path = join(spoolDir(dataDir), name);
  // Taken before the spool exists: nobody ever sees this spool without its writer's lock.
  const lock = new Database(lockPath(dataDir, name));
  lock.exec('BEGIN EXCLUSIVE');
  let fd: number | undefined = openSync(path, 'a', 0o600);
  const release = () => {
    if (!lock.open) return;
    lock.exec('ROLLBACK');
    lock.close();
    rmSync(lockPath(dataDir, name), { force: true });
  };
  return {
    name,
    append(event) {
      if (fd !== undefined) writeSync(fd, `${JSON.stringify(event)}\n`);
    },
    sync() {
      if (fd !== undefined) fdatasyncSync(fd);
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
      release();
    },
    remove() {
      this.close();
      rmSync(path, { force: true });
    },
  };
}

/** The events of a spool; a last line cut off by a kill is left out, any other bad line too (logged). */
export function readSpool(dataDir: string, name: string, log: (line: string) => void): RunEvent[] {
  if (!SPOOL_NAME.test(name)) throw new Error(`"${name}" is not a run spool`);
  const text = readFileSync(join(spoolDir(dataDir), name), 'utf8');
  const events: RunEvent[] = [];
  let bad = 0;
  for (const line of text.split('\n')) {
    if (line.trim().length === 0) continue;
    try {
      const parsed = RunEvent.safeParse(JSON.parse(line));
      if (parsed.success) events.push(parsed.data);
      else bad += 1;
    } catch {
      bad += 1;
    }
  }
  if (bad > 0) log(`${bad} line(s) of the command's run spool ${name} could not be read; the rest was kept`);
  return events;
}

/** Folds one spool into the journal and removes it: how many events were new, and whose runs they are. */
export function foldSpool(journal: EventJournal, dataDir: string, name: string, log: (line: string) => void): { added: number; runIds: Set<string> } {
  const events = readSpool(dataDir, name, log);
  const added = journal.append(events);
  rmSync(join(spoolDir(dataDir), name), { force: true });
  return { added, runIds: new Set(events.map((e) => e.run_id)) };
}


/**
 * Spools left by commands that are gone (killed, crashed): folded, and each run they leave open
 * (not waiting for a person) closed as interrupted, saying it was the command that stopped.
 */
export function foldOrphanSpools(journal: EventJournal, dataDir: string, waiting: ReadonlySet<string>, log: (line: string) => void): string[] {
  let names: string[];
  try {
    names = readdirSync(spoolDir(dataDir));
  } catch {
    return [];
  }
  const closed: string[] = [];
  for (const name of names) {
    const match = SPOOL_NAME.exec(name);
    if (!match || !writerGone(dataDir, name, Number(match[1]))) continue;
    const { runIds } = foldSpool(journal, dataDir, name, log);
    for (const run of journal.openRuns()) {
      if (!runIds.has(run.run_id) || waiting.has(run.run_id)) continue;
      journal.append([interruptedEnd(run, 'The steward command running this run stopped (killed or crashed) before it ended. Tool calls it had started are never re-run.')]);
      closed.push(run.run_id);
      log(`run ${run.run_id} of a steward command that stopped was folded into the history and closed as interrupted`);
    }
  }
  return closed;
}

/** No process writes this spool any more: its lock is free (or, for a spool from before locks, its pid is gone). */
function writerGone(dataDir: string, name: string, pid: number): boolean {
  const file = lockPath(dataDir, name);
  if (!existsSync(file)) return processGone(pid);
  let lock: Database.Database | undefined;
  try {
    lock = new Database(file, { timeout: 0 });
    lock.exec('BEGIN IMMEDIATE');
    lock.exec('ROLLBACK');
  } catch {
    // Busy: its command holds it, so it is still writing.
    lock?.close();
    return false;
  }
  lock.close();
  rmSync(file, { force: true });
  return true;
}
