import { parseArgs } from 'node:util';
import { traceLine } from '@shared/contracts/trace-format';
import type { EventJournal } from '../../events/event-journal';
import type { ListedRun } from '../../events/history-queries';
import type { RunRow } from '@shared/history/run-summary';
import { runNamedBy } from '../../events/run-named-by';
import type { CliIo, EXIT } from './cli-io';
import { historyToRead } from './history-to-read';
import { ambiguousWords, noRunWords } from './run-named-words';
import { fileProblem } from '../../util/file-problem';
import { writeFileAtomic } from '../../util/write-file-atomic';
import { typedPath } from './typed-path';

// Type-only link to cli.ts (which imports this file through runs-command.ts): the codes are checked equal to EXIT at compile time.
const CODE = { ok: 0, noRun: 1, badInput: 2 } as const satisfies { ok: (typeof EXIT)['ok']; noRun: (typeof EXIT)['runNotCompleted']; badInput: (typeof EXIT)['badInput'] };

/** Events read from the history a page at a time: a run of any length is written in bounded memory. */
const PAGE_EVENTS = 1_000;
const PAGE_BYTES = 4_000_000;

class Refused extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly usage = false,
  ) {
    super(message);
  }
}

/**
 * `steward runs export RUN_ID... -o FILE.jsonl|-`: runs out of the data folder's history in the format
 * the app's "Export JSONL" and `steward run --trace` write (one event a line, each run's events together
 * in sequence order, the oldest run first), which `steward runs import` and the app's Import take back.
 * A run's child runs (workflows it ran, issue 29) go with it unless --without-children. Every RUN_ID is
 * resolved before anything is written: one that names no run, or several, exports nothing.
 */
export async function runsExportCommand(args: string[], io: CliIo, usage: string): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(`${usage}\n`);
    return CODE.ok;
  }
  try {
    return await exportRuns(args, io);
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    io.stderr(`steward runs: ${error.message}\n${error.usage ? `\n${usage}\n` : ''}`);
    return error.code;
  }
}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      options: { output: { type: 'string', short: 'o' }, 'without-children': { type: 'boolean', default: false }, 'data-dir': { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new Refused((error as Error).message, CODE.badInput, true);
  }
}

async function exportRuns(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args);
  if (positionals.length === 0) throw new Refused('which runs? name at least one RUN_ID (steward runs list shows them)', CODE.badInput, true);
  const output = values.output;
  if (output === undefined || output === '') throw new Refused('-o FILE.jsonl is required (-o - writes to standard output)', CODE.badInput, true);
  const history = await historyToRead(io, values['data-dir']);
  if (!history.ok) {
    if (history.missing) throw new Refused(`there is no data folder at ${history.dataDir}, so no run to export (is --data-dir right?)`, CODE.noRun);
    throw new Refused(history.message, CODE.badInput);
  }
  try {
    const runs = runsToExport(history.journal, positionals, !values['without-children'], io);
    const toStdout = output === '-';
    const written = toStdout ? writeRuns(history.journal, runs, io.stdout) : writeWhole(typedPath(io, output), (write) => writeRuns(history.journal, runs, write));
    // With -o -, standard output is the trace: the summary must not end up in it.
    (toStdout ? io.stderr : io.stdout)(`${exportWords(runs, written, toStdout ? 'standard output' : output)}\n`);
    return CODE.ok;
  } finally {
    history.close();
  }
}

interface ExportedRun {
  listed: ListedRun;
  /** Named on the command line, or a child run of one that was. */
  named: boolean;
}

/** The runs the command names, each resolved as `runs show` resolves it, with their child runs; oldest first. */
function runsToExport(journal: EventJournal, typed: readonly string[], withChildren: boolean, io: CliIo): ExportedRun[] {
  const named: string[] = [];
  let refusal: number | undefined;
  for (const id of typed) {
    const found = runNamedBy(journal.connection, id);
    if (found.kind === 'run') {
      if (!named.includes(found.runId)) named.push(found.runId);
      continue;
    }
    io.stderr(`steward runs: ${found.kind === 'ambiguous' ? ambiguousWords(id, found) : noRunWords(id, "this data folder's history", found.kind === 'none' && found.short)}\n`);
    // A start several runs share is a typing problem (2); a run that is not there, as for show, is 1.
    refusal = found.kind === 'ambiguous' || refusal === CODE.badInput ? CODE.badInput : CODE.noRun;
  }
  if (refusal !== undefined) throw new Refused('nothing was exported', refusal);
  const children = withChildren ? journal.childRunIds(named).filter((id) => !named.includes(id)) : [];
  const runs: ExportedRun[] = [];
  for (const [ids, isNamed] of [
    [named, true],
    [children, false],
  ] as const) {
    for (const id of ids) {
      const listed = journal.run(id);
      // Resolved a moment ago in the same read: only a run deleted in between (by the app) is missing.
      if (!listed) throw new Refused(`run ${id} left the history while it was being exported; nothing was exported`, CODE.noRun);
      runs.push({ listed, named: isNamed });
    }
  }
  // As the app exports: the oldest run first (a parent before the runs it started).
  return runs.sort((a, b) => (a.listed.run.started_at === b.listed.run.started_at ? a.listed.run.run_id.localeCompare(b.listed.run.run_id) : a.listed.run.started_at < b.listed.run.started_at ? -1 : 1));
}

interface Written {
  events: number;
  /** Runs whose events written hold no end (a run still going, or waiting for a person): their events so far. */
  unfinished: RunRow[];
}

/** Each run's events in sequence order, a page of the history at a time. */
function writeRuns(journal: EventJournal, runs: readonly ExportedRun[], write: (text: string) => void): Written {
  let events = 0;
  const unfinished: RunRow[] = [];
  for (const { listed } of runs) {
    let after = -1;
    // Whether the run ended, from its events as written (it may end while it is exported), not its row.
    let ended = false;
    for (;;) {
      const page = journal.runEventsPage(listed.run.run_id, after, PAGE_EVENTS, PAGE_BYTES);
      if (page.events.length > 0) write(page.events.map((event) => `${traceLine(event)}\n`).join(''));
      events += page.events.length;
      ended ||= page.events.some((event) => event.type === 'run.finished');
      if (page.next === undefined) break;
      after = page.next;
    }
    if (!ended) unfinished.push(listed.run);
  }
  return { events, unfinished };
}

/** Written whole or not at all (util/write-file-atomic.ts): a failed or interrupted export never leaves half a trace. */
function writeWhole(path: string, fill: (write: (text: string) => void) => Written): Written {
  try {
    return writeFileAtomic(path, fill);
  } catch (error) {
    if (error instanceof Refused) throw error;
    throw new Refused(`cannot write ${path}: ${fileProblem(error, 'write')}; nothing was exported`, CODE.badInput);
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "exported 1 run and 2 child runs of it (143 events) to runs.jsonl", and a run exported while still under way. */
function exportWords(runs: readonly ExportedRun[], written: Written, where: string): string {
  const named = runs.filter((r) => r.named).length;
  const children = runs.length - named;
  const chained = children > 0 ? ` and ${plural(children, 'child run')} of ${named === 1 ? 'it' : 'them'}` : '';
  const lines = [`exported ${plural(named, 'run')}${chained} (${plural(written.events, 'event')}) to ${where}`];
  for (const run of written.unfinished) {
    const state = run.status === 'waiting' ? 'is waiting for a person' : run.status === 'running' ? 'is still running' : 'has no end in the history';
    lines.push(`run ${run.run_id.slice(0, 8)} ${state}: the file holds its events so far (an import closes it as imported unfinished)`);
  }
  return lines.join('\n');
}
