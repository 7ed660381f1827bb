import type { RunEvent } from '../contracts/events';
import { traceLineEvent } from '../contracts/trace-line';
import { utf8Bytes } from '../util/trim-text';
import { sameStoredEvent, storedImportedEvent } from './imported-event';

/**
 * One check of an imported trace for the CLI (`steward runs import`) and the page's Import, so both
 * refuse the same damage with the same sentence (issue 26). Pure: files come in as text.
 */

/**
 * The longest line an import reads. A recorded event keeps each model text within 16 KiB and a
 * tool result within 100,000 characters, so even a round record holding several of them stays far
 * below; 4 MiB is also the most any other reader of Steward's JSON lines takes (the CLI channel's
 * frame, the legacy journal's read). A longer line (a 20 MB value) is damage or not Steward's: it is
 * refused by its number before it is parsed, not trimmed.
 */
export const MAX_TRACE_LINE_BYTES = 4 * 1024 * 1024;

/** A file of an import, as read. */
export interface TraceFile {
  name: string;
  text: string;
}

/** Where a line is: its file and number (1-based; 0: the file as a whole). */
export interface TraceLineAt {
  file: string;
  line: number;
}

export interface TraceEntry {
  at: TraceLineAt;
  event: RunEvent;
}

/**
 * The events to import (each once, trimmed and masked as stored; `entries`: each with the line it
 * came from), or the first problem: where, and `message`, the sentence both shells show
 * (`file, line N: …`). `repeats`: lines that repeated an earlier one unchanged (dropped);
 * `trimmed`, `masked`: events whose model text was trimmed, in which a raw key was masked.
 */
export type TraceCheck =
  | { ok: true; events: RunEvent[]; entries: TraceEntry[]; runs: number; repeats: number; trimmed: number; masked: number }
  | { ok: false; at: TraceLineAt; problem: string; message: string };

/** Every line of every file, in order: the first problem refuses the whole import. Blank lines are skipped. */
export function checkTraceFiles(files: readonly TraceFile[]): TraceCheck {
  const checker = new TraceChecker();
  for (const file of files) {
    for (const [i, raw] of file.text.split('\n').entries()) {
      const problem = checker.line({ file: file.name, line: i + 1 }, raw);
      if (problem) return refused(problem.at, problem.problem);
    }
    const empty = checker.endFile(file.name);
    if (empty) return refused(empty.at, empty.problem);
  }
  return checker.result();
}

/** `file, line N: problem` (`file: problem` for the file as a whole). */
export function traceProblemMessage(at: TraceLineAt, problem: string): string {
  return at.line === 0 ? `${at.file}: ${problem}` : `${at.file}, line ${at.line}: ${problem}`;
}

function refused(at: TraceLineAt, problem: string): TraceCheck {
  return { ok: false, at, problem, message: traceProblemMessage(at, problem) };
}

function lineTooLong(line: string): string | undefined {
  // Every UTF-16 unit is at most 3 UTF-8 bytes: most lines need no counting.
  if (line.length * 3 <= MAX_TRACE_LINE_BYTES) return undefined;
  const bytes = utf8Bytes(line);
  if (bytes <= MAX_TRACE_LINE_BYTES) return undefined;
  const mib = (n: number) => (n / (1024 * 1024)).toFixed(1);
  return `the line is ${mib(bytes)} MiB, and a trace line holds at most ${mib(MAX_TRACE_LINE_BYTES)} MiB (far more than any event Steward records, whose model texts are trimmed to 16 KiB): the file is damaged, or this line was not written by Steward`;
}

const NO_EVENTS = 'there are no events to import';

/** An event taken, with the line it came from (what a later line is compared with): the event, or its type, seq and fingerprint. */
export interface Taken {
  at: TraceLineAt;
  event: RunEvent | Pick<RunEvent, 'type' | 'seq'>;
  print?: string;
}

/**
 * What the checker remembers of the lines so far: each event by id and by place, each run's end.
 * In memory by default; a caller reading a file of any size keeps it on disk (the CLI's import).
 */
export interface TraceMemory {
  byId(id: string): Taken | undefined;
  byPlace(runId: string, seq: number): Taken | undefined;
  end(runId: string): Taken | undefined;
  take(event: RunEvent, taken: Taken): void;
  runs(): number;
}

function memoryInMaps(): TraceMemory {
  const byId = new Map<string, Taken>();
  const byPlace = new Map<string, Taken>();
  const ends = new Map<string, Taken>();
  const runs = new Set<string>();
  return {
    byId: (id) => byId.get(id),
    byPlace: (runId, seq) => byPlace.get(`${runId}\u0000${seq}`),
    end: (runId) => ends.get(runId),
    take(event, taken) {
      byId.set(event.id, taken);
      byPlace.set(`${event.run_id}\u0000${event.seq}`, taken);
      if (event.type === 'run.finished') ends.set(event.run_id, taken);
      runs.add(event.run_id);
    },
    runs: () => runs.size,
  };
}

export interface TraceCheckerOptions {
  /**
   * What an event is compared by when a later line has its id: by default the event itself (kept).
   * A caller reading a large file line by line passes a digest of `canonicalJson(storedForm(event))`
   * and `keep: false`, so what it holds grows with the number of events, not their bytes.
   */
  fingerprint?: (event: RunEvent) => string;
  keep?: boolean;
  /** Where the lines so far are remembered (default: in memory). */
  memory?: TraceMemory;
}

/** A line's problem, where it is. */
export interface TraceLineProblem {
  at: TraceLineAt;
  problem: string;
}

/** What the lines so far hold: each event once, by id and by place (run, seq), and each run's end. */
export class TraceChecker {
  private readonly memory: TraceMemory;
  private readonly entries: TraceEntry[] = [];
  private repeats = 0;
  private trimmed = 0;
  private masked = 0;
  private inFile = 0;
  private taken = 0;
  private readonly fingerprint: ((event: RunEvent) => string) | undefined;
  private readonly keep: boolean;

  constructor(options: TraceCheckerOptions = {}) {
    this.fingerprint = options.fingerprint;
    this.keep = options.keep ?? true;
    this.memory = options.memory ?? memoryInMaps();
  }

  /** One line of a file as read (blank lines are passed over): its problem, or nothing. */
  line(at: TraceLineAt, raw: string): TraceLineProblem | undefined {
    const read = this.lineEvent(at, raw);
    return read.ok ? undefined : read.problem;
  }

  /** `line`, giving back the event it read (none for a blank line), for a caller that checks it further. */
  lineEvent(at: TraceLineAt, raw: string): { ok: true; event?: RunEvent } | { ok: false; problem: TraceLineProblem } {
    const line = raw.trim();
    if (line.length === 0) return { ok: true };
    const tooLong = lineTooLong(line);
    if (tooLong) return { ok: false, problem: { at, problem: tooLong } };
    const read = traceLineEvent(line);
    if (!read.ok) return { ok: false, problem: { at, problem: read.problem } };
    const problem = this.add(at, read.event);
    if (problem) return { ok: false, problem: { at, problem } };
    this.inFile += 1;
    return { ok: true, event: read.event };
  }

  /** The file ended: a file that held no event is a problem of its own. */
  endFile(name: string): TraceLineProblem | undefined {
    const found = this.inFile;
    this.inFile = 0;
    return found === 0 ? { at: { file: name, line: 0 }, problem: 'the file holds no events' } : undefined;
  }

  /** What the lines held: events to import (those kept), runs, repeats, trimmed and masked. */
  counts(): { events: number; runs: number; repeats: number; trimmed: number; masked: number } {
    return { events: this.taken, runs: this.memory.runs(), repeats: this.repeats, trimmed: this.trimmed, masked: this.masked };
  }

  /** Takes the event, or says what is wrong with it; an unchanged repeat of an earlier line is dropped. */
  add(at: TraceLineAt, event: RunEvent): string | undefined {
    const sameId = this.memory.byId(event.id);
    if (sameId) {
      // Exports overlap (a run exported twice, two files of the same runs): a repeat is harmless.
      if (this.same(sameId, event)) {
        this.repeats += 1;
        return undefined;
      }
      return `event "${event.id}" is also on ${lineName(sameId.at, at)}, with different content: one of the two lines was changed or damaged. Keep the right one and import again`;
    }
    const samePlace = this.memory.byPlace(event.run_id, event.seq);
    if (samePlace) {
      return `run "${event.run_id}" has two different events at seq ${event.seq}, this line ("${event.type}") and ${lineName(samePlace.at, at)} ("${samePlace.event.type}"): one was changed or damaged. Keep the right one and import again`;
    }
    const end = event.type === 'run.finished' ? this.memory.end(event.run_id) : undefined;
    if (end) return `run "${event.run_id}" ends twice, at seq ${event.seq} here and at seq ${end.event.seq} on ${lineName(end.at, at)}: keep the right end and import again`;
    const stored = storedImportedEvent(event);
    if (!stored.ok) return stored.problem;
    const taken: Taken = this.fingerprint ? { at, event: { type: event.type, seq: event.seq }, print: this.fingerprint(stored.event) } : { at, event };
    this.memory.take(event, taken);
    if (this.keep) this.entries.push({ at, event: stored.event });
    this.taken += 1;
    if (stored.trimmed) this.trimmed += 1;
    if (stored.masked) this.masked += 1;
    return undefined;
  }

  private same(taken: Taken, event: RunEvent): boolean {
    if (taken.print === undefined || !this.fingerprint) return sameStoredEvent(taken.event as RunEvent, event);
    const stored = storedImportedEvent(event);
    return stored.ok && this.fingerprint(stored.event) === taken.print;
  }

  result(): TraceCheck {
    if (this.taken === 0) return { ok: false, at: { file: '', line: 0 }, problem: NO_EVENTS, message: NO_EVENTS };
    const events = this.entries.map((entry) => entry.event);
    return { ok: true, events, entries: this.entries, runs: this.memory.runs(), repeats: this.repeats, trimmed: this.trimmed, masked: this.masked };
  }
}

/** `line 2` in the same file, `line 2 of a.jsonl` in another. */
function lineName(of: TraceLineAt, from: TraceLineAt): string {
  return of.file === from.file ? `line ${of.line}` : `line ${of.line} of ${of.file}`;
}
