import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import type { RunEvent } from '@shared/contracts/events';
import { traceLineEvent } from '@shared/contracts/trace-line';
import { TraceChecker, traceProblemMessage, type TraceLineAt } from '@shared/history/check-trace';
import { sameStoredEvent, storedForm } from '@shared/history/imported-event';
import type { ImportCounts } from '@shared/history/import-summary';
import { canonicalJson } from '@shared/util/canonical-json';
import { diskTraceMemory, type DiskTraceMemory } from './import-memory';
import type { EventJournal } from '../../events/event-journal';
import type { RunHistory } from '../../events/run-history';
import { fileProblem } from '../../util/file-problem';

/**
 * `steward runs import` a line at a time (issue 26): a trace of any size is imported holding a digest
 * per event, never the file. Two passes over the files:
 *   1. check every line (the page's checks, check-trace.ts, and against the history: an event under
 *      a stored id or at a stored place must be the stored one), so damage anywhere imports nothing;
 *   2. read them again and import in chunks of CHUNK events, each a transaction of the history.
 * Both passes report progress on a large file (`progress`: a line a person reads on the terminal).
 */

/** Events per `RunHistory.import` call (one transaction each). */
const CHUNK = 2_000;
/** Files this large or larger report progress. */
const PROGRESS_BYTES = 16 * 1024 * 1024;

export type Checked =
  | { ok: true; counts: Omit<ImportCounts, 'imported' | 'repeated' | 'held'> & { events: number }; memory: DiskTraceMemory }
  | { ok: false; message: string };

/** What pass 1 reads of the history: an event by id or by place, a batch of look-ups in one read transaction. */
export type HistoryLookUp = Pick<EventJournal, 'eventById' | 'eventAt' | 'reading'>;

/** A history that holds nothing (a data folder not made yet). */
export const NO_HISTORY: HistoryLookUp = { eventById: () => undefined, eventAt: () => undefined, reading: (look) => look() };

/**
 * Lines checked against the history together, in one read transaction: a look-up each outside one
 * took and dropped SQLite's locks every time (2.5 million fcntl calls for a 200k-event trace).
 */
const LOOK_UP_BATCH = 1_000;

/** Pass 1: the first problem of any line of any file, by file and line, or what they hold. */
export async function checkTraceStreams(files: readonly string[], history: HistoryLookUp, progress: (line: string) => void): Promise<Checked> {
  const memory = diskTraceMemory();
  // 128 bits of a SHA-256 per event: what tells a changed repeat from the same one, on disk, not in memory.
  const checker = new TraceChecker({ fingerprint: (event) => createHash('sha256').update(canonicalJson(event)).digest('base64url').slice(0, 22), keep: false, memory });
  const refuse = (message: string): Checked => {
    memory.close();
    return { ok: false, message };
  };
  // Events read but not yet looked up in the history, in line order: the first problem is still the first by line.
  let unchecked: Array<{ at: TraceLineAt; event: RunEvent }> = [];
  const lookUp = (): string | undefined => {
    if (unchecked.length === 0) return undefined;
    const batch = unchecked;
    unchecked = [];
    return history.reading(() => {
      for (const { at, event } of batch) {
        const problem = againstHistory(at, event, history);
        if (problem) return problem;
      }
      return undefined;
    });
  };
  for (const file of files) {
    const problem = await eachLine(file, 'checking', progress, (at, raw) => {
      const read = checker.lineEvent(at, raw);
      if (!read.ok) return lookUp() ?? traceProblemMessage(read.problem.at, read.problem.problem);
      if (read.event) unchecked.push({ at, event: read.event });
      return unchecked.length >= LOOK_UP_BATCH ? lookUp() : undefined;
    });
    // Lines before a file that stopped reading are looked up first: their problem comes first.
    const first = lookUp() ?? problem;
    if (first) return refuse(first);
    const empty = checker.endFile(basename(file));
    if (empty) return refuse(traceProblemMessage(empty.at, empty.problem));
  }
  const counts = checker.counts();
  if (counts.events === 0) return refuse('there are no events to import');
  return { ok: true, counts: { events: counts.events, runs: counts.runs, repeatedLines: counts.repeats, trimmed: counts.trimmed, masked: counts.masked }, memory };
}

/** Pass 2: the checked files into the history, a chunk at a time (`memory`: what pass 1 remembered, closed here). */
export async function importTraceStreams(
  files: readonly string[],
  memory: DiskTraceMemory,
  history: RunHistory,
  importId: string,
  progress: (line: string) => void,
): Promise<{ imported: number; repeated: number; held: number }> {
  try {
    return await importChunks(files, memory, history, importId, progress);
  } finally {
    memory.close();
  }
}

async function importChunks(files: readonly string[], memory: DiskTraceMemory, history: RunHistory, importId: string, progress: (line: string) => void): Promise<{ imported: number; repeated: number; held: number }> {
  const totals = { imported: 0, repeated: 0, held: 0 };
  let chunk: RunEvent[] = [];
  const flush = () => {
    if (chunk.length === 0) return;
    const result = history.import(importId, chunk);
    totals.imported += result.imported;
    totals.repeated += result.repeated;
    totals.held += result.held;
    chunk = [];
  };
  for (const file of files) {
    await eachLine(file, 'importing', progress, (at, raw) => {
      const line = raw.trim();
      if (line.length === 0) return undefined;
      const read = traceLineEvent(line);
      // Pass 1 read every line: a line that no longer reads means the file changed in between.
      if (!read.ok) return `${basename(file)} changed while it was imported; what was read before is kept`;
      // A line repeating an earlier one was counted by the check: taken once, from the line it was first on.
      const first = memory.firstLine(read.event.id);
      if (!first) return `${basename(file)} changed while it was imported; what was read before is kept`;
      if (first.file !== at.file || first.line !== at.line) return undefined;
      chunk.push(read.event);
      if (chunk.length >= CHUNK) flush();
      return undefined;
    }).then((problem) => {
      if (problem) throw new Error(problem);
    });
  }
  flush();
  return totals;
}

/** The history's own event under this id or at this place, if it is another. */
function againstHistory(at: TraceLineAt, event: RunEvent, history: HistoryLookUp): string | undefined {
  const byId = history.eventById(event.id);
  if (byId && !sameStoredEvent(byId, storedForm(event))) {
    return traceProblemMessage(at, `the history holds a different event with the id "${event.id}": the trace was changed or damaged, or its run is another under the same id. Nothing was imported`);
  }
  const there = byId ? undefined : history.eventAt(event.run_id, event.seq);
  if (there) return traceProblemMessage(at, `the history holds a different event at seq ${event.seq} of run "${event.run_id}" ("${there.type}", id "${there.id}"): the trace was changed or damaged. Nothing was imported`);
  return undefined;
}

/** Each line of a file, read as a stream; `visit` returns a problem to stop at. Progress every 10% of a large file. */
async function eachLine(file: string, doing: string, progress: (line: string) => void, visit: (at: TraceLineAt, raw: string) => string | undefined): Promise<string | undefined> {
  let size: number;
  try {
    const stat = statSync(file);
    // A folder opens like a file and fails at its first read: said before reading.
    if (stat.isDirectory()) return `cannot read ${file}: ${fileProblem({ code: 'EISDIR' })}`;
    size = stat.size;
  } catch (error) {
    return `cannot read ${file}: ${fileProblem(error)}`;
  }
  const name = basename(file);
  const stream = createReadStream(file, { encoding: 'utf8' });
  const opened = new Promise<string | undefined>((resolve) => {
    stream.once('open', () => resolve(undefined));
    stream.once('error', (error) => resolve(`cannot read ${file}: ${fileProblem(error)}`));
  });
  const failed = await opened;
  if (failed) return failed;
  let lineNo = 0;
  let bytes = 0;
  let shown = 0;
  try {
    for await (const raw of createInterface({ input: stream, crlfDelay: Infinity })) {
      lineNo += 1;
      bytes += Buffer.byteLength(raw, 'utf8') + 1;
      const problem = visit({ file: name, line: lineNo }, raw);
      if (problem) return problem;
      const tenth = Math.floor((bytes / Math.max(1, size)) * 10);
      if (size >= PROGRESS_BYTES && tenth > shown && tenth < 10) {
        shown = tenth;
        progress(`${doing} ${name}: ${tenth * 10}% (${(bytes / 1024 / 1024).toFixed(0)} of ${(size / 1024 / 1024).toFixed(0)} MB)`);
      }
    }
  } catch (error) {
    // The disk failing under the read (EIO…): said as the file's problem; anything else is not the file's.
    if ((error as NodeJS.ErrnoException).syscall === undefined) throw error;
    return `cannot read ${file}: ${fileProblem(error)}`;
  } finally {
    stream.destroy();
  }
  return undefined;
}
