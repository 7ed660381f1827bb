import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { RunEvent } from '@shared/contracts/events';
import { CheckpointStore } from '../../engine/checkpoint';
import { JournalRewriteError, type EventJournal } from '../../events/event-journal';
import { openHistory } from '../../events/open-history';
import { RunHistory } from '../../events/run-history';
import { traceFileProblem, traceLineEvent } from '../../events/trace-line';
import { RequestError } from '../../registry/request-error';
import { defaultDataDir } from '../../util/data-dir';
import { acquireDataFolderLock, DataFolderInUseError } from '../../util/data-folder-lock';
import { WorkflowCheckpointStore } from '../../workflow/workflow-checkpoint';
import type { CliIo, EXIT } from './cli';
import { typedPath } from './typed-path';
import { waitingCommand } from './waiting-command';

// Type-only link to cli.ts (which imports this file): the codes are checked equal to EXIT at compile time.
const CODE = { ok: 0, notAll: 1, badInput: 2 } as const satisfies { ok: (typeof EXIT)['ok']; notAll: (typeof EXIT)['runNotCompleted']; badInput: (typeof EXIT)['badInput'] };

export const RUNS_USAGE = `Usage:
  steward runs waiting [--json] [--data-dir DIR]       list the runs waiting for a person (answer: steward answer)
  steward runs delete RUN_ID... [--data-dir DIR]       delete runs from the data folder's history
  steward runs import FILE.jsonl... [--data-dir DIR]   add the runs of JSONL traces to it
  (--data-dir: default STEWARD_DATA_DIR, else the platform's usual place)

This is the history the app's Runs screen shows. A deleted run's events leave the host's journal,
and every browser that holds it deletes it when it next connects. A run waiting for a person is
never deleted. An import takes steward run --trace files and the app's "Export JSONL" files: every
line is checked first, and a bad line imports nothing; a run the history already holds keeps its
events. While the app runs, it does both (its Runs screen changes at once).
Exit codes: 0 done · 1 delete: some runs were not there or are waiting · 2 bad input`;

/** `steward runs …`. Returns the exit code; a refusal is a message on stderr. */
export async function runsCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  const fail = (message: string, usage = false) => {
    io.stderr(`steward runs: ${message}\n${usage ? `\n${RUNS_USAGE}\n` : ''}`);
    return CODE.badInput;
  };
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout(`${RUNS_USAGE}\n`);
    return CODE.ok;
  }
  if (sub === 'waiting') return waitingCommand(rest, io, RUNS_USAGE);
  if (sub !== 'delete' && sub !== 'import') return fail(sub === undefined ? 'which subcommand?' : `unknown subcommand "${sub}"`, true);
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { 'data-dir': { type: 'string' } }, allowPositionals: true, strict: true });
  } catch (err) {
    return fail((err as Error).message, true);
  }
  const { values, positionals } = parsed;
  if (positionals.length === 0) return fail(sub === 'delete' ? 'which runs? name at least one RUN_ID' : 'which files? name at least one FILE.jsonl', true);
  const dataDir = io.hosted ? io.hosted.dataDir : values['data-dir'] !== undefined ? typedPath(io, values['data-dir']) : defaultDataDir(io.env);

  // Read every file before taking the folder: a bad line refuses the import with nothing changed.
  let events: RunEvent[] = [];
  if (sub === 'import') {
    const read = readTraces(positionals.map((file) => typedPath(io, file)));
    if (!read.ok) return fail(`${read.message}; nothing was imported`);
    events = read.events;
  }

  // The app runs this command: its own history (the Runs screen changes at once), its runs not to delete.
  if (io.hosted) {
    const { history, journal, runs } = io.hosted;
    return sub === 'delete' ? await deleteRuns(history, journal, positionals, new Set([...runs.waitingRunIds(), ...runs.activeIds()]), io) : importRuns(history, events, io);
  }
  // A folder that is not there: nothing to delete from; an import makes it, as the app's first start would.
  if (!existsSync(dataDir)) {
    if (sub === 'delete') return fail(`there is no data folder at ${dataDir}, so no run to delete (is --data-dir right?)`);
    mkdirSync(dataDir, { recursive: true });
    io.stderr(`steward: made the data folder ${dataDir}\n`);
  }
  let lock;
  try {
    lock = acquireDataFolderLock(dataDir, { shell: 'cli' });
  } catch (err) {
    if (err instanceof DataFolderInUseError) return fail(`${err.message} Or delete and import runs in the app's Runs screen.`);
    throw err;
  }
  const log = (line: string) => io.stderr(`steward: ${line}\n`);
  const journal = openHistory(dataDir, { log });
  try {
    // The host is not running (the lock says so): only runs parked for a person are not to be deleted.
    const waiting = new Set([
      ...new CheckpointStore(join(dataDir, 'waiting-runs'), log).list(log).map((c) => c.run_id),
      ...new WorkflowCheckpointStore(join(dataDir, 'waiting-workflows'), log).list(log).map((c) => c.run_id),
    ]);
    const history = new RunHistory(journal, { activeIds: () => [], waitingRunIds: () => waiting }, log);
    return sub === 'delete' ? await deleteRuns(history, journal, positionals, waiting, io) : importRuns(history, events, io);
  } finally {
    journal.close();
    lock.release();
  }
}

async function deleteRuns(history: RunHistory, journal: EventJournal, runIds: string[], waiting: ReadonlySet<string>, io: CliIo): Promise<number> {
  const missing = runIds.filter((id) => !journal.hasRun(id));
  const blocked = runIds.filter((id) => waiting.has(id));
  const wanted = runIds.filter((id) => journal.hasRun(id) && !waiting.has(id));
  for (const id of missing) io.stderr(`steward runs: no run "${id}" in this data folder's history\n`);
  for (const id of blocked) io.stderr(`steward runs: run "${id}" is waiting for a person: answer or stop it first, with steward answer or in the app (not deleted)\n`);
  let deleted = 0;
  try {
    deleted = wanted.length > 0 ? await history.delete(wanted) : 0;
  } catch (err) {
    if (!(err instanceof RequestError) && !(err instanceof JournalRewriteError)) throw err;
    io.stderr(`steward runs: ${err.message}\n`);
    return CODE.notAll;
  }
  io.stdout(`deleted ${deleted} run${deleted === 1 ? '' : 's'}\n`);
  return missing.length + blocked.length > 0 ? CODE.notAll : CODE.ok;
}

function importRuns(history: RunHistory, events: RunEvent[], io: CliIo): number {
  const importId = `cli-${process.pid}-${Date.now()}`;
  let imported = 0;
  let skipped = 0;
  for (let i = 0; i < events.length; i += 2_000) {
    const result = history.import(importId, events.slice(i, i + 2_000));
    imported += result.imported;
    skipped += result.skipped;
  }
  // The import is over: a run its trace left unfinished is closed as imported unfinished.
  const unfinished = history.closeUnfinishedImports(importId).length;
  const runs = new Set(events.map((e) => e.run_id)).size;
  io.stdout(`imported ${imported} event${imported === 1 ? '' : 's'} of ${runs} run${runs === 1 ? '' : 's'}${skipped > 0 ? ` (${skipped} already there, skipped)` : ''}\n`);
  if (unfinished > 0) io.stdout(`${unfinished} run${unfinished === 1 ? '' : 's'} ended unfinished in the trace: closed as imported unfinished\n`);
  return CODE.ok;
}

function readTraces(files: string[]): { ok: true; events: RunEvent[] } | { ok: false; message: string } {
  const events: RunEvent[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      return { ok: false, message: `cannot read ${file}: ${traceFileProblem(err)}` };
    }
    for (const [i, raw] of text.split('\n').entries()) {
      const line = raw.trim();
      if (line.length === 0) continue;
      const read = traceLineEvent(line);
      if (!read.ok) return { ok: false, message: `${basename(file)}:${i + 1}: ${read.problem}` };
      events.push(read.event);
    }
  }
  if (events.length === 0) return { ok: false, message: 'the files hold no events' };
  return { ok: true, events };
}
