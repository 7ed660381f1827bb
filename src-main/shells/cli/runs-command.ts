import { existsSync, mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { importSummary } from '@shared/history/import-summary';
import { waitingStoresOn } from '../../engine/waiting-stores';
import { HistoryWriteError, JournalRewriteError, type EventJournal } from '../../events/event-journal';
import { openHistory } from '../../events/open-history';
import { liveCommandRuns } from '../../events/interrupted-runs';
import { RunHistory } from '../../events/run-history';
import { runNamedBy } from '../../events/run-named-by';
import { RequestError } from '../../registry/request-error';
import { defaultDataDir } from '../../util/data-dir';
import { acquireDataFolderLock, DataFolderInUseError } from '../../util/data-folder-lock';
import type { CliIo, EXIT } from './cli-io';
import { checkTraceStreams, importTraceStreams, NO_HISTORY, type Checked } from './import-traces';
import { ambiguousWords, noRunWords } from './run-named-words';
import { runsExportCommand } from './runs-export-command';
import { isReadSubcommand, runsReadCommand } from './runs-read-command';
import { typedPath } from './typed-path';
import { waitingCommand } from './waiting-command';
import { wrapUsage } from '@shared/util/wrap-usage';

// Type-only link to cli.ts (which imports this file): the codes are checked equal to EXIT at compile time.
const CODE = { ok: 0, notAll: 1, badInput: 2 } as const satisfies { ok: (typeof EXIT)['ok']; notAll: (typeof EXIT)['runNotCompleted']; badInput: (typeof EXIT)['badInput'] };

export const RUNS_USAGE = wrapUsage(`Usage:
  steward runs list [--status S]... [--workflow ID] [--since WHEN] [--until WHEN] [--imported|--ran-here] [--oldest] [--limit N] [--after RUN_ID] [--json] [--data-dir DIR]
  steward runs search WORDS|RUN_ID [--status S]... [--workflow ID] [--since WHEN] [--until WHEN] [--imported|--ran-here] [--oldest] [--limit N] [--after RUN_ID] [--json] [--data-dir DIR]
  steward runs show RUN_ID [--json] [--data-dir DIR]
  steward runs waiting [--json] [--data-dir DIR]
  steward runs export RUN_ID... -o FILE.jsonl|- [--without-children] [--data-dir DIR]
  steward runs delete RUN_ID... [--data-dir DIR]
  steward runs import FILE.jsonl... [--data-dir DIR]
  (--data-dir: default STEWARD_DATA_DIR, else the platform's usual place)

  list     the newest runs, a line each (short id, status, name, start, rounds, events); --status
           (repeat it, or completed,failed) and --workflow (a workflow's or agent spec's id) filter;
           --since and --until keep the runs started in that time: WHEN is a day (2026-12-05,
           this machine's local day; --until includes it) or a day and time (2026-12-05T14:30,
           local unless it ends in Z or an offset); --imported keeps the runs that came from an
           imported trace, --ran-here those that ran on this machine; --oldest lists the oldest first;
           --limit N of them (default 20, at most 1000); --after RUN_ID goes on after that run
           (the footer of a page names it), so any page of a long history can be reached
  search   the newest runs with every word typed, each word by its start ("summ monday"), or
           whose id is RUN_ID or starts with it
  show     one run: name, status, task, models, times, rounds and its events stored here;
           RUN_ID is the whole id or its first 8 characters or more (a start that several runs'
           ids share lists them and shows none)
  waiting  the runs waiting for a person (answer them with steward answer)
  export   write runs to a JSONL trace, as the app's "Export JSONL" does (-o, --output FILE; -o -
           writes to standard output): each run's events as stored, with the runs it started
           (workflows it ran) unless --without-children; each RUN_ID whole or its first 8
           characters or more, and one that names no run, or several, exports nothing
  delete   delete runs from the data folder's history; each RUN_ID whole or its first 8
           characters or more, as show takes it (a start several runs share deletes none of them)
  import   add the runs of JSONL traces to it (an export, here or from another data folder, too)
  --json   list, search: { runs: [{ run, events, imported }], next? } (next: more runs follow,
           --after with its run_id gives them);
           show: { run, imported, events }, the events exactly as stored

This is the history the app's Runs screen shows. A deleted run's events leave the history
database, and every browser that holds it deletes it when it next connects. A run waiting for a
person is never deleted. An import takes steward run --trace files and the app's "Export JSONL"
files of any size (read a line at a time, with progress on a large one): every line is checked
first, also against the history, and a bad line imports nothing; a run the history already holds
keeps its events; a key-like value (sk-…, ghp_…) is masked and model text over 16 KiB trimmed, as
recorded runs are, and the summary says so. While the app runs, it runs these commands itself: its
Runs screen changes at once, and list, search, show and export read its history as it is then.
Exit codes: 0 done · 1 delete: some runs were not there, are waiting, or were named by a start
            several share; show, export: no such run
            · 2 bad input (show, export: a RUN_ID start that several runs share)`);

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
  if (isReadSubcommand(sub)) return runsReadCommand(sub, rest, io, RUNS_USAGE);
  if (sub === 'export') return runsExportCommand(rest, io, RUNS_USAGE);
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

  const files = sub === 'import' ? positionals.map((file) => typedPath(io, file)) : [];
  const change = (history: RunHistory, journal: EventJournal, waiting: ReadonlySet<string>, checked?: Checked) =>
    sub === 'import' ? importRuns(history, journal, files, io, checked) : deleteRuns(history, journal, positionals, waiting, io);

  // The app runs this command: its own history (the Runs screen changes at once), its runs not to delete.
  if (io.hosted) {
    const { history, journal, runs } = io.hosted;
    return change(history, journal, new Set([...runs.waitingRunIds(), ...runs.activeIds()]));
  }
  // A folder that is not there: nothing to delete from; an import makes it, as the app's first start would,
  // once its files are checked (against an empty history: a bad line makes no folder).
  let checkedFresh: Checked | undefined;
  if (!existsSync(dataDir)) {
    if (sub === 'delete') return fail(`there is no data folder at ${dataDir}, so no run to delete (is --data-dir right?)`);
    checkedFresh = await checkTraceStreams(files, NO_HISTORY, (line) => io.stderr(`steward: ${line}\n`));
    if (!checkedFresh.ok) return fail(`${checkedFresh.message}; nothing was imported`);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    io.stderr(`steward: made the data folder ${dataDir}\n`);
  }
  let lock;
  try {
    lock = acquireDataFolderLock(dataDir, { shell: 'cli' });
  } catch (err) {
    if (checkedFresh?.ok) checkedFresh.memory.close();
    if (err instanceof DataFolderInUseError) return fail(`${err.message} Or delete and import runs in the app's Runs screen.`);
    throw err;
  }
  const log = (line: string) => io.stderr(`steward: ${line}\n`);
  const journal = openHistory(dataDir, { log });
  try {
    // The host is not running (the lock says so): runs parked for a person, and those a steward command still writes, are not to be deleted.
    const stores = waitingStoresOn(journal.connection, { now: (step) => journal.connection.transaction(step).immediate() }, dataDir, log);
    const waiting = new Set([...stores.checkpoints.list(log).map((c) => c.run_id), ...stores.workflowCheckpoints.list(log).map((c) => c.run_id)]);
    const history = new RunHistory(journal, { activeIds: () => liveCommandRuns(journal, dataDir), waitingRunIds: () => waiting }, log);
    return await change(history, journal, waiting, checkedFresh);
  } finally {
    journal.close();
    lock.release();
  }
}

async function deleteRuns(history: RunHistory, journal: EventJournal, typed: string[], waiting: ReadonlySet<string>, io: CliIo): Promise<number> {
  // Each RUN_ID as `runs list` prints it (its first 8 characters) or whole: a start several runs share deletes none of them.
  const named = typed.map((id) => ({ typed: id, named: runNamedBy(journal.connection, id) }));
  const refused = named.filter((n) => n.named.kind !== 'run');
  for (const { typed: id, named: n } of refused) io.stderr(`steward runs: ${n.kind === 'ambiguous' ? `${ambiguousWords(id, n)}\n(not deleted)` : noRunWords(id, "this data folder's history", n.kind === 'none' && n.short)}\n`);
  const runIds = [...new Set(named.flatMap((n) => (n.named.kind === 'run' ? [n.named.runId] : [])))];
  const blocked = runIds.filter((id) => waiting.has(id));
  const wanted = runIds.filter((id) => !waiting.has(id));
  for (const id of blocked) io.stderr(`steward runs: run "${id}" is waiting for a person: answer or stop it first, with steward answer or in the app (not deleted)\n`);
  let deleted = 0;
  try {
    deleted = wanted.length > 0 ? await history.delete(wanted) : 0;
  } catch (err) {
    if (!(err instanceof RequestError) && !(err instanceof JournalRewriteError)) throw err;
    io.stderr(`steward runs: ${err.message}\n`);
    return CODE.notAll;
  }
  // A run's child runs (workflows it ran, issue 29) went with it: said apart from the runs named.
  const children = Math.max(0, deleted - wanted.length);
  io.stdout(`deleted ${deleted - children} run${deleted - children === 1 ? '' : 's'}${children > 0 ? ` and ${children} child run${children === 1 ? '' : 's'} of ${deleted - children === 1 ? 'it' : 'them'}` : ''}\n`);
  return refused.length + blocked.length > 0 ? CODE.notAll : CODE.ok;
}

/**
 * Every line of every file is checked first (import-traces.ts), so damage anywhere imports nothing;
 * then the files are read again and imported a chunk at a time: a trace of any size, in bounded memory.
 */
async function importRuns(history: RunHistory, journal: EventJournal, files: readonly string[], io: CliIo, prechecked?: Checked): Promise<number> {
  const progress = (line: string) => io.stderr(`steward: ${line}\n`);
  const checked = prechecked ?? (await checkTraceStreams(files, journal, progress));
  if (!checked.ok) {
    io.stderr(`steward runs: ${checked.message}; nothing was imported\n`);
    return CODE.badInput;
  }
  const importId = `cli-${process.pid}-${Date.now()}`;
  let totals;
  try {
    totals = await importTraceStreams(files, checked.memory, history, importId, progress);
  } catch (err) {
    if (!(err instanceof RequestError) && !(err instanceof HistoryWriteError) && !(err instanceof Error && /changed while/.test(err.message))) throw err;
    io.stderr(`steward runs: ${err.message}\n`);
    return CODE.badInput;
  }
  // The import is over: a run its trace left unfinished is closed as imported unfinished.
  const unfinished = history.closeUnfinishedImports(importId).length;
  io.stdout(`${importSummary({ ...checked.counts, ...totals })}\n`);
  if (unfinished > 0) io.stdout(`${unfinished} run${unfinished === 1 ? '' : 's'} ended unfinished in the trace: closed as imported unfinished\n`);
  return CODE.ok;
}
