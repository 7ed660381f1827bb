import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { RunEvent } from '@shared/contracts/events';
import { interruptedEnd } from './interrupted-end';
import { COMMAND_STOPPED } from './interrupted-runs';
import type { EventJournal } from './event-journal';
import { runLockDir } from './run-lock';
import { processGone } from '../util/lock-file';

/**
 * Before issue 26, a `steward` command that ran with no host on its data folder wrote its run's events
 * to a spool here, one JSON line each, and folded them into the history when the run ended. A command
 * now writes straight into the history (command-run-writer.ts); spools an older command left (it was
 * killed, or the app it handed them to was not there) are still folded at the next host start and
 * their runs closed as interrupted. The journal skips an event id it holds, so folding twice adds nothing.
 */
export const spoolDir = (dataDir: string) => join(dataDir, 'cli-runs');

/**
 * Whether a spool's command still writes it is told by a lock, not a pid (a pid is reused): the
 * command held an exclusive transaction on a small SQLite file of its own for as long as it wrote the
 * spool, and the operating system drops that lock the moment the process dies. Spools written before
 * the lock existed are told by their pid.
 */
const lockPath = (dataDir: string, name: string) => join(runLockDir(dataDir), `${name}.lock`);

/** `<pid>-<random>.jsonl`: the pid of the command that wrote it (for spools from before the lock). */
const SPOOL_NAME = /^(\d+)-[0-9a-f]{12}\.jsonl$/;

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
      journal.append([interruptedEnd(run, COMMAND_STOPPED)]);
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
