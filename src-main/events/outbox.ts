import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { RunEvent } from '@shared/contracts/events';

/**
 * The host's event outbox (DESIGN.md §2): an append-only JSONL journal in the user-data folder.
 *
 * Line kinds:
 *   {"k":"event","event":RunEvent}   appended before anyone is told about the event
 *   {"k":"ack","ids":[...]}           the renderer has stored these durably
 *   {"k":"run","run_id",…}            written by compaction: a run without `run.finished` yet, with
 *                                     its next sequence number, so a run the host never finished
 *                                     (killed mid-run) can be closed correctly after a restart
 *
 * Pending = events without an ack, in append order. Acked entries are dropped by compaction
 * (rewrite with only pending events to a temp file, fsync, rename), which runs on open and
 * whenever the acked entries since the last compaction exceed a threshold. A crash can only
 * tear the last line; it is skipped on load and compaction removes it. Lines that are not
 * valid JSON or fail the schema are skipped, counted, and copied to `<journal>.invalid` so
 * nothing is silently destroyed.
 */

const EventLine = z.object({ k: z.literal('event'), event: RunEvent }).strict();
const AckLine = z.object({ k: z.literal('ack'), ids: z.array(z.string()) }).strict();
const RunLine = z
  .object({ k: z.literal('run'), run_id: z.string(), next_seq: z.number().int().nonnegative(), rounds: z.number().int().nonnegative() })
  .strict();
const JournalLine = z.discriminatedUnion('k', [EventLine, AckLine, RunLine]);
type JournalLine = z.infer<typeof JournalLine>;

export interface OutboxOptions {
  /** Compact once this many acked entries sit in the journal. Default 1000. */
  compactThreshold?: number;
  /** Where to report skipped lines and listener failures. Default: console.error. */
  log?: (line: string) => void;
}

/** What loading the journal found; exposed so the host can surface damage instead of hiding it. */
export interface OutboxLoadReport {
  pending: number;
  /** Lines that were not JSON or failed the schema (excluding a torn last line). */
  invalidLines: number;
  /** The last line was cut short (a crash mid-append) and was skipped. */
  tornTail: boolean;
}

export type OutboxListener = (events: RunEvent[]) => void;

/** A run that has emitted events but no `run.finished`: where its sequence stands. */
export interface OpenRun {
  run_id: string;
  next_seq: number;
  rounds: number;
}

export class Outbox {
  readonly path: string;
  readonly loadReport: OutboxLoadReport;
  private readonly pendingById = new Map<string, RunEvent>();
  private readonly openRunsById = new Map<string, OpenRun>();
  private readonly listeners = new Set<OutboxListener>();
  private readonly threshold: number;
  private readonly log: (line: string) => void;
  /** Acked entries (event lines + ack lines) still physically in the journal. */
  private ackedInJournal = 0;
  private fd: number | null;

  private constructor(journalPath: string, options: OutboxOptions) {
    this.path = journalPath;
    this.threshold = Math.max(1, options.compactThreshold ?? 1000);
    this.log = options.log ?? ((line) => console.error(line));
    fs.mkdirSync(path.dirname(journalPath), { recursive: true });
    this.loadReport = this.load();
    // Always start from a clean journal: drops acked entries, invalid lines and a torn tail,
    // so the next append can never be glued onto a half-written line.
    this.fd = null;
    this.compact();
  }

  static open(journalPath: string, options: OutboxOptions = {}): Outbox {
    return new Outbox(journalPath, options);
  }

  /**
   * Writes the events durably (one write + fsync), then notifies subscribers.
   * Events whose id is already pending are skipped (ids are deterministic, so a repeat is the same event).
   * Returns how many were appended.
   */
  append(events: readonly RunEvent[]): number {
    const fd = this.requireOpen();
    const fresh: RunEvent[] = [];
    const seen = new Set<string>();
    for (const raw of events) {
      // Validate on the way in too: a malformed event in the journal would be skipped on reload.
      const event = RunEvent.parse(raw);
      if (this.pendingById.has(event.id) || seen.has(event.id)) continue;
      seen.add(event.id);
      fresh.push(event);
    }
    if (fresh.length === 0) return 0;
    const text = fresh.map((event) => JSON.stringify({ k: 'event', event } satisfies JournalLine)).join('\n') + '\n';
    writeAllSync(fd, text);
    fs.fdatasyncSync(fd);
    for (const event of fresh) {
      this.pendingById.set(event.id, event);
      this.track(event);
    }
    this.notify(fresh);
    return fresh.length;
  }

  /** Unacknowledged events, in append order. */
  pending(): RunEvent[] {
    return [...this.pendingById.values()];
  }

  /** Runs with events but no `run.finished`, acknowledged or not. */
  openRuns(): OpenRun[] {
    return [...this.openRunsById.values()].map((r) => ({ ...r }));
  }

  get pendingCount(): number {
    return this.pendingById.size;
  }

  /** Marks events as stored by the renderer. Unknown or already-acked ids are ignored. Returns how many were newly acked. */
  ack(ids: readonly string[]): number {
    const fd = this.requireOpen();
    const newly = [...new Set(ids)].filter((id) => this.pendingById.has(id));
    if (newly.length === 0) return 0;
    writeAllSync(fd, JSON.stringify({ k: 'ack', ids: newly } satisfies JournalLine) + '\n');
    fs.fdatasyncSync(fd);
    for (const id of newly) this.pendingById.delete(id);
    this.ackedInJournal += newly.length + 1;
    if (this.ackedInJournal >= this.threshold) this.compact();
    return newly.length;
  }

  /** Called with each batch after it is durable. Returns the unsubscribe function. */
  subscribe(listener: OutboxListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Rewrites the journal with only the pending events (temp file + rename: atomic on one volume). */
  compact(): void {
    if (this.fd !== null) {
      fs.closeSync(this.fd);
      this.fd = null;
    }
    const temp = `${this.path}.${process.pid}.tmp`;
    const runs = this.openRuns().map((run) => JSON.stringify({ k: 'run', ...run } satisfies JournalLine) + '\n');
    const events = this.pending().map((event) => JSON.stringify({ k: 'event', event } satisfies JournalLine) + '\n');
    const text = [...runs, ...events].join('');
    const tempFd = fs.openSync(temp, 'w');
    try {
      writeAllSync(tempFd, text);
      fs.fsyncSync(tempFd);
    } finally {
      fs.closeSync(tempFd);
    }
    fs.renameSync(temp, this.path);
    fsyncDirectory(path.dirname(this.path));
    this.ackedInJournal = 0;
    this.fd = fs.openSync(this.path, 'a');
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
    this.listeners.clear();
  }

  private requireOpen(): number {
    if (this.fd === null) throw new Error(`Outbox ${this.path} is closed`);
    return this.fd;
  }

  private track(event: RunEvent): void {
    if (event.type === 'run.finished') {
      this.openRunsById.delete(event.run_id);
      return;
    }
    const run = this.openRunsById.get(event.run_id) ?? { run_id: event.run_id, next_seq: 0, rounds: 0 };
    run.next_seq = Math.max(run.next_seq, event.seq + 1);
    if (event.type === 'round.completed') run.rounds = Math.max(run.rounds, event.round + 1);
    this.openRunsById.set(event.run_id, run);
  }

  private notify(events: RunEvent[]): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(events);
      } catch (error) {
        // The events are already durable; one failing listener must not starve the others.
        this.log(`outbox: a subscriber failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  private load(): OutboxLoadReport {
    let text: string;
    try {
      text = fs.readFileSync(this.path, 'utf8');
    } catch (error) {
      if (isNotFound(error)) return { pending: 0, invalidLines: 0, tornTail: false };
      throw new Error(`Cannot read the event outbox ${this.path}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const lines = text.split('\n');
    // Every complete line ends with '\n', so the final element is '' unless the last write was torn.
    const tail = lines.pop() ?? '';
    const tornTail = tail.trim().length > 0;
    const invalid: string[] = [];
    for (const line of lines) {
      if (line.trim().length === 0) continue;
      const entry = parseLine(line);
      if (!entry) {
        invalid.push(line);
        continue;
      }
      switch (entry.k) {
        case 'event':
          if (!this.pendingById.has(entry.event.id)) this.pendingById.set(entry.event.id, entry.event);
          this.track(entry.event);
          break;
        case 'ack':
          for (const id of entry.ids) this.pendingById.delete(id);
          break;
        case 'run':
          this.openRunsById.set(entry.run_id, { run_id: entry.run_id, next_seq: entry.next_seq, rounds: entry.rounds });
          break;
      }
    }
    if (invalid.length > 0) {
      fs.appendFileSync(`${this.path}.invalid`, invalid.map((line) => line + '\n').join(''));
      this.log(`outbox: skipped ${invalid.length} invalid journal line(s); copied to ${this.path}.invalid`);
    }
    if (tornTail) this.log('outbox: skipped a torn last journal line (interrupted write)');
    return { pending: this.pendingById.size, invalidLines: invalid.length, tornTail };
  }
}

function parseLine(line: string): JournalLine | null {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return null;
  }
  const parsed = JournalLine.safeParse(json);
  return parsed.success ? parsed.data : null;
}

function writeAllSync(fd: number, text: string): void {
  const buffer = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < buffer.length) offset += fs.writeSync(fd, buffer, offset, buffer.length - offset);
}

/** Makes the rename itself durable where the platform allows it (not on Windows). */
function fsyncDirectory(dir: string): void {
  if (process.platform === 'win32') return;
  let fd: number | null = null;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Best effort: some filesystems refuse fsync on directories.
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error as NodeJS.ErrnoException).code === 'ENOENT';
}
