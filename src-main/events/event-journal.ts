import fs from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { RunEvent } from '@shared/contracts/events';

/**
 * The host's event journal (DESIGN.md §2, issue 9): an append-only JSONL file in the data folder and
 * the durable source of truth for run history. A page's IndexedDB is an index of it: every page
 * session keeps its own cursor (a position) and backfills whatever follows it, so nothing one page
 * does can drop an event for another.
 *
 * Line kinds:
 *   {"k":"journal","id"}              first line: this journal's identity (a cursor from another journal means nothing here)
 *   {"k":"event","pos":N,"event"}     appended (and fsynced) before anyone is told about the event; N grows by one per event
 *   {"k":"run","run_id",…}            legacy (the outbox's compaction): where a run without `run.finished` stood
 *   {"k":"ack","ids"}                 legacy (the outbox's acks): read and ignored, nothing is dropped any more
 *   {"k":"deleted","run_ids","at"}    tombstones: these runs were removed (by a person or retention) when the head was `at`;
 *                                     a page whose cursor is at or before `at` may still hold them and is told to delete them
 *   {"k":"imported","run_ids"}        these runs came from an imported trace: they never ran on this host, so one left
 *                                     unfinished is not this host's interrupted run (openRuns leaves them out)
 *   {"k":"compacted","through"}       tombstones made at or before `through` were dropped (compaction, below)
 *
 * Tombstones are compacted: past `maxTombstones` run ids the oldest are dropped when the journal is next rewritten,
 * and `through` (the highest head a dropped one was made at) is kept instead. A page whose cursor is at or before it
 * may hold a run whose tombstone is gone, so the feed has it reconcile first (journal-feed.ts): it asks which of the
 * runs it holds the journal still has, and deletes the others. So a deleted run never comes back, and the journal
 * does not grow by a line per deletion for ever.
 *
 * Positions survive restarts. A crash can only tear the last line: it is skipped on load and cut
 * off before the next append. Lines that are not valid JSON or fail the schema are skipped, counted
 * and copied to `<journal>.invalid`. The journal is rewritten (temp file, fsync, rename) only to
 * remove damage, to upgrade an outbox written before positions existed, or to remove runs (`remove`:
 * deleted by a person or by retention). Removed positions are never handed out again: the remaining
 * events keep theirs and the head stays where it was, so every page cursor stays meaningful.
 * `remove` copies the file asynchronously (appends go on meanwhile and follow into the new file) and
 * changes what the journal holds in memory only once the new file is in place: a failed rewrite
 * (disk full, no permission) leaves file and memory as they were (`JournalRewriteError`).
 */

const HeaderLine = z.object({ k: z.literal('journal'), id: z.string().min(1).max(100) }).strict();
const EventLine = z.object({ k: z.literal('event'), pos: z.number().int().positive().optional(), event: RunEvent }).strict();
const AckLine = z.object({ k: z.literal('ack'), ids: z.array(z.string()) }).strict();
const RunLine = z
  .object({ k: z.literal('run'), run_id: z.string(), next_seq: z.number().int().nonnegative(), rounds: z.number().int().nonnegative() })
  .strict();
const DeletedLine = z.object({ k: z.literal('deleted'), run_ids: z.array(z.string().min(1)), at: z.number().int().nonnegative() }).strict();
const ImportedLine = z.object({ k: z.literal('imported'), run_ids: z.array(z.string().min(1)) }).strict();
const CompactedLine = z.object({ k: z.literal('compacted'), through: z.number().int().nonnegative() }).strict();
const JournalLine = z.discriminatedUnion('k', [HeaderLine, EventLine, AckLine, RunLine, DeletedLine, ImportedLine, CompactedLine]);
type JournalLine = z.infer<typeof JournalLine>;

export interface EventJournalOptions {
  /** Where to report skipped lines and listener failures. Default: console.error. */
  log?: (line: string) => void;
  /** Run ids kept as tombstones before the oldest are compacted (see above). Default MAX_TOMBSTONES. */
  maxTombstones?: number;
}

/** Tombstones kept by default: a page offline through more deletions than this reconciles once (one request per 1,000 of its runs). */
export const MAX_TOMBSTONES = 10_000;

/** What loading the journal found; exposed so the host can surface damage instead of hiding it. */
export interface JournalLoadReport {
  events: number;
  /** Lines that were not JSON or failed the schema (excluding a torn last line). */
  invalidLines: number;
  /** The last line was cut short (a crash mid-append) and was skipped. */
  tornTail: boolean;
}

/** A run of consecutive journal events: `after` is the position before the first, `position` that of the last. */
export interface JournalSlice {
  events: RunEvent[];
  after: number;
  position: number;
}

export type JournalListener = (slice: JournalSlice) => void;

/** A run that has emitted events but no `run.finished`: where its sequence stands. */
export interface OpenRun {
  run_id: string;
  next_seq: number;
  rounds: number;
}

/** Runs removed together, and the journal's head when they were: pages at or before it are told. */
export interface JournalRemoval {
  run_ids: string[];
  at: number;
}
export type RemovalListener = (removal: JournalRemoval) => void;

/** What retention needs to know of a run, kept as its events are appended (never by scanning). */
export interface JournalRunFacts {
  run_id: string;
  /** run.started's spec id or workflow.started's workflow id: "keep N runs" counts runs of the same one. */
  spec_id?: string;
  /** The run's first event's time (run.started's, when it has one). */
  started_at: string;
  /** run.finished's time; absent while the run is open (running, waiting). */
  finished_at?: string;
  /** What the run's trace profile said when it started (run.started.retention). */
  retention?: { days?: number | undefined; runs?: number | undefined };
}

/** Removing runs could not rewrite the journal: nothing was removed, on disk or in memory. */
export class JournalRewriteError extends Error {
  readonly code = 'rewrite_failed' as const;
  constructor(
    readonly journalPath: string,
    readonly reason: string,
  ) {
    super(
      `Could not rewrite the event journal ${journalPath} (${reason}), so nothing was deleted. ` +
        'Check that the data folder is writable and its disk has free space, then try again.',
    );
    this.name = 'JournalRewriteError';
  }
}

/** Where an event's line sits in the file, to read it back without holding every event in memory. */
interface Entry {
  pos: number;
  offset: number;
  length: number;
}

export class EventJournal {
  readonly path: string;
  readonly loadReport: JournalLoadReport;
  private journalId = '';
  private entries: Entry[] = [];
  private readonly ids = new Set<string>();
  private readonly openRunsById = new Map<string, OpenRun>();
  private readonly listeners = new Set<JournalListener>();
  private readonly removalListeners = new Set<RemovalListener>();
  /** Removed runs → the head when they were removed (lifted when the run's events come back, e.g. an import). */
  private readonly tombstones = new Map<string, number>();
  private readonly runFacts = new Map<string, JournalRunFacts>();
  /** Runs that came from an imported trace (never ran on this host). */
  private readonly importedRuns = new Set<string>();
  /** Removals run one at a time, in the order asked. */
  private removing: Promise<unknown> = Promise.resolve();
  /** The highest position handed out before a removal: the head never goes back below it. */
  private floor = 0;
  /** Tombstones made at or before this head were compacted away: a page at or before it reconciles. */
  private compacted = 0;
  private readonly maxTombstones: number;
  private readonly log: (line: string) => void;
  private fd: number | null = null;
  private readFd: number | null = null;
  /** Bytes in the file: where the next line starts. */
  private size = 0;

  private constructor(journalPath: string, options: EventJournalOptions) {
    this.path = journalPath;
    this.log = options.log ?? ((line) => console.error(line));
    this.maxTombstones = Math.max(0, options.maxTombstones ?? MAX_TOMBSTONES);
    fs.mkdirSync(path.dirname(journalPath), { recursive: true });
    const { report, clean, events } = this.load();
    this.loadReport = report;
    if (!clean) this.rewrite(events);
    this.fd = fs.openSync(this.path, 'a');
    this.readFd = fs.openSync(this.path, 'r');
  }

  static open(journalPath: string, options: EventJournalOptions = {}): EventJournal {
    return new EventJournal(journalPath, options);
  }

  /** This journal's identity: a cursor is only meaningful for the journal that gave it. */
  get id(): string {
    return this.journalId;
  }

  /** The position of the last event (0 when empty). */
  get head(): number {
    return Math.max(this.entries.at(-1)?.pos ?? 0, this.floor);
  }

  get count(): number {
    return this.entries.length;
  }

  /**
   * Writes the events durably (one write + fsync), then notifies subscribers.
   * An event whose id is already in the journal is skipped (ids are deterministic: a repeat is the same event).
   * Returns how many were appended. `made` = the host's engine made these events (typed, never read
   * from outside): they are not validated again.
   */
  append(events: readonly RunEvent[], options: { made?: boolean; imported?: boolean } = {}): number {
    const fd = this.requireOpen();
    const fresh: RunEvent[] = [];
    const seen = new Set<string>();
    for (const raw of events) {
      // Validate what came from elsewhere: a malformed event in the journal would be skipped on reload.
      const event = options.made ? raw : RunEvent.parse(raw);
      if (this.ids.has(event.id) || seen.has(event.id)) continue;
      seen.add(event.id);
      fresh.push(event);
    }
    if (fresh.length === 0) return 0;
    const after = this.head;
    const lines = fresh.map((event, i) => JSON.stringify({ k: 'event', pos: after + i + 1, event } satisfies JournalLine) + '\n');
    // Imported runs are marked in the same write as their first events: a restart knows them too.
    const newlyImported = options.imported ? [...new Set(fresh.map((e) => e.run_id))].filter((id) => !this.importedRuns.has(id)) : [];
    const mark = newlyImported.length > 0 ? JSON.stringify({ k: 'imported', run_ids: newlyImported } satisfies JournalLine) + '\n' : '';
    writeAllSync(fd, mark + lines.join(''));
    fs.fdatasyncSync(fd);
    this.size += Buffer.byteLength(mark, 'utf8');
    for (const id of newlyImported) this.importedRuns.add(id);
    lines.forEach((line, i) => {
      const length = Buffer.byteLength(line, 'utf8');
      this.entries.push({ pos: after + i + 1, offset: this.size, length });
      this.size += length;
    });
    for (const event of fresh) {
      this.ids.add(event.id);
      this.track(event);
    }
    this.notify({ events: fresh, after, position: after + fresh.length });
    return fresh.length;
  }

  /** Up to `limit` events after `after`, read back from the file, in order. */
  read(after: number, limit: number): JournalSlice {
    const readFd = this.readFd;
    if (readFd === null) throw new Error(`The event journal ${this.path} is closed`);
    const start = firstAfter(this.entries, after);
    const slice = this.entries.slice(start, start + Math.max(1, limit));
    const first = slice[0];
    const last = slice.at(-1);
    if (!first || !last) return { events: [], after, position: after };
    const buffer = Buffer.alloc(last.offset + last.length - first.offset);
    let done = 0;
    while (done < buffer.length) {
      const n = fs.readSync(readFd, buffer, done, buffer.length - done, first.offset + done);
      if (n === 0) throw new Error(`The event journal ${this.path} is shorter than its index (changed by someone else?)`);
      done += n;
    }
    const events = slice.map((entry) => {
      // Lines were validated on load or on append: parsing them again would only cost time.
      const line = buffer.toString('utf8', entry.offset - first.offset, entry.offset - first.offset + entry.length);
      return (JSON.parse(line) as { event: RunEvent }).event;
    });
    // Nothing lies between `after` and the first event read: the slice follows the asked position.
    return { events, after, position: last.pos };
  }

  /** This host's runs with events but no `run.finished` (imported runs are not this host's: see importedOpenRuns). */
  openRuns(): OpenRun[] {
    return [...this.openRunsById.values()].filter((r) => !this.importedRuns.has(r.run_id)).map((r) => ({ ...r }));
  }

  /** Imported runs whose trace has no `run.finished` (they were exported unfinished). */
  importedOpenRuns(): OpenRun[] {
    return [...this.openRunsById.values()].filter((r) => this.importedRuns.has(r.run_id)).map((r) => ({ ...r }));
  }

  /** Whether this run came from an imported trace. */
  isImported(runId: string): boolean {
    return this.importedRuns.has(runId);
  }

  /** Whether the journal holds events of this run. */
  hasRun(runId: string): boolean {
    return this.runFacts.has(runId);
  }

  /** Every run the journal holds, with what retention needs to know of it. */
  runs(): JournalRunFacts[] {
    return [...this.runFacts.values()].map((run) => ({ ...run }));
  }

  /** Tombstones made at or before this were compacted away (0: none): a page whose cursor is in (0, compactedThrough] must reconcile. */
  get compactedThrough(): number {
    return this.compacted;
  }

  /** Tombstones kept (run ids). */
  get tombstoneCount(): number {
    return this.tombstones.size;
  }

  /** Runs removed when the head was at or after `after`: a page whose cursor is `after` may still hold them. */
  deletedSince(after: number): string[] {
    const out: string[] = [];
    for (const [runId, at] of this.tombstones) if (at >= after) out.push(runId);
    return out;
  }

  /** Called after runs were removed (the file already rewritten). Returns the unsubscribe function. */
  onRemoved(listener: RemovalListener): () => void {
    this.removalListeners.add(listener);
    return () => {
      this.removalListeners.delete(listener);
    };
  }

  /**
   * Removes every event of these runs: the journal is rewritten without them, the other events keep
   * their positions, and a tombstone records which runs went and where the head stood, so pages that
   * hold them delete them too. Runs it does not hold are ignored. Whether a run may go (not running,
   * not waiting) is the caller's judgement. The copy is made without holding the event loop; events
   * appended meanwhile follow into the new file. Only once it is renamed into place does the journal
   * forget the runs: a failed rewrite rejects with JournalRewriteError and changes nothing.
   */
  remove(runIds: readonly string[]): Promise<JournalRemoval> {
    const removal = this.removing.then(() => this.removeNow(runIds));
    this.removing = removal.catch(() => undefined);
    return removal;
  }

  private async removeNow(runIds: readonly string[]): Promise<JournalRemoval> {
    this.requireOpen();
    const gone = new Set(runIds.filter((id) => this.runFacts.has(id)));
    if (gone.size === 0) return { run_ids: [], at: this.head };
    const at = await this.rewriteWithout(gone);
    const removal = { run_ids: [...gone], at };
    for (const listener of [...this.removalListeners]) {
      try {
        listener(removal);
      } catch (error) {
        this.log(`event journal: a removal listener failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return removal;
  }

  /** Called with each batch after it is durable. Returns the unsubscribe function. */
  subscribe(listener: JournalListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  close(): void {
    // A removal under way sees the journal closed and gives up, leaving the file as it was.
    if (this.fd !== null) fs.closeSync(this.fd);
    if (this.readFd !== null) fs.closeSync(this.readFd);
    this.fd = null;
    this.readFd = null;
    this.listeners.clear();
    this.removalListeners.clear();
  }

  private requireOpen(): number {
    if (this.fd === null) throw new Error(`The event journal ${this.path} is closed`);
    return this.fd;
  }

  private track(event: RunEvent): void {
    // Events of a removed run came back (an import): it is no longer deleted.
    if (this.tombstones.size > 0) this.tombstones.delete(event.run_id);
    this.trackFacts(event);
    if (event.type === 'run.finished') {
      this.openRunsById.delete(event.run_id);
      return;
    }
    const run = this.openRunsById.get(event.run_id) ?? { run_id: event.run_id, next_seq: 0, rounds: 0 };
    run.next_seq = Math.max(run.next_seq, event.seq + 1);
    if (event.type === 'round.completed') run.rounds = Math.max(run.rounds, event.round + 1);
    this.openRunsById.set(event.run_id, run);
  }

  private trackFacts(event: RunEvent): void {
    let facts = this.runFacts.get(event.run_id);
    if (!facts) {
      facts = { run_id: event.run_id, started_at: event.ts };
      this.runFacts.set(event.run_id, facts);
    }
    if (event.type === 'run.started') {
      facts.spec_id = event.spec_id;
      facts.started_at = event.ts;
      if (event.retention) facts.retention = { ...event.retention };
    } else if (event.type === 'workflow.started') {
      facts.spec_id = event.workflow_id;
      facts.started_at = event.ts;
      if (event.retention) facts.retention = { ...event.retention };
    } else if (event.type === 'run.finished') facts.finished_at = event.ts;
  }

  /**
   * The lines before the events: identity, where open runs stand, which runs were imported, the
   * tombstones (by the head they were made at). `without`: runs being removed.
   */
  private headText(without: ReadonlySet<string> = new Set(), compaction: Compaction = { dropped: new Set(), through: this.compacted }): string {
    const byAt = new Map<number, string[]>();
    for (const [runId, at] of this.tombstones) if (!compaction.dropped.has(runId)) byAt.set(at, [...(byAt.get(at) ?? []), runId]);
    const imported = [...this.importedRuns].filter((id) => !without.has(id) && this.runFacts.has(id));
    return [
      JSON.stringify({ k: 'journal', id: this.journalId } satisfies JournalLine) + '\n',
      ...[...this.openRunsById.values()].filter((run) => !without.has(run.run_id)).map((run) => JSON.stringify({ k: 'run', ...run } satisfies JournalLine) + '\n'),
      ...(imported.length > 0 ? [JSON.stringify({ k: 'imported', run_ids: imported } satisfies JournalLine) + '\n'] : []),
      ...(compaction.through > 0 ? [JSON.stringify({ k: 'compacted', through: compaction.through } satisfies JournalLine) + '\n'] : []),
      ...[...byAt].map(([at, run_ids]) => JSON.stringify({ k: 'deleted', run_ids, at } satisfies JournalLine) + '\n'),
    ].join('');
  }

  /**
   * Which tombstones to drop so that, with `adding` more, at most maxTombstones are kept: the oldest first (the map
   * is in the order they were made). A removal's own tombstone is never dropped by it.
   */
  private compaction(adding: ReadonlySet<string> = new Set()): Compaction {
    const kept = [...this.tombstones.keys()].filter((id) => !adding.has(id)).length;
    let excess = kept + adding.size - this.maxTombstones;
    const dropped = new Set<string>();
    let through = this.compacted;
    for (const [runId, at] of this.tombstones) {
      if (excess <= 0) break;
      if (adding.has(runId)) continue;
      dropped.add(runId);
      through = Math.max(through, at);
      excess -= 1;
    }
    return { dropped, through };
  }

  private applyCompaction(compaction: Compaction): void {
    for (const id of compaction.dropped) this.tombstones.delete(id);
    this.compacted = compaction.through;
  }

  /**
   * `remove`'s rewrite. The kept lines are copied byte for byte (their positions unchanged), read in
   * slices so memory stays bounded, awaiting between slices so the host keeps serving; appends made
   * meanwhile land in the old file and are copied too. The last few lines, the tombstone, the rename
   * and the switch of what the journal holds are done in one synchronous step, so no append falls in
   * between. Any failure before the rename removes the temp file and changes nothing.
   * Returns the head the tombstone records.
   */
  private async rewriteWithout(gone: ReadonlySet<string>): Promise<number> {
    const temp = `${this.path}.${process.pid}.tmp`;
    const kept: Entry[] = [];
    const goneIds: string[] = [];
    let size = 0;
    let copied = 0;
    let created = false;
    let src: FileHandle | undefined;
    let out: FileHandle | undefined;
    const copy = (slice: readonly Entry[], buffer: Buffer): Buffer => {
      const first = slice[0]!;
      const parts: Buffer[] = [];
      for (const entry of slice) {
        const line = buffer.subarray(entry.offset - first.offset, entry.offset - first.offset + entry.length);
        if (gone.has(lineRunId(line))) {
          goneIds.push(lineIds(line.toString('utf8')).id);
          continue;
        }
        kept.push({ pos: entry.pos, offset: size, length: entry.length });
        size += entry.length;
        parts.push(line);
      }
      return Buffer.concat(parts);
    };
    let at: number;
    // Decided before the copy starts: the tombstones the new file's head leaves out are forgotten when it is in place.
    const compaction = this.compaction(gone);
    try {
      src = await fsp.open(this.path, 'r');
      out = await fsp.open(temp, 'w');
      created = true;
      const head = Buffer.from(this.headText(gone, compaction), 'utf8');
      await writeAllAsync(out, head);
      size = head.length;
      while (this.entries.length - copied > REWRITE_TAIL_SYNC) {
        const slice = this.entries.slice(copied, copied + REWRITE_SLICE);
        const first = slice[0]!;
        const last = slice.at(-1)!;
        const buffer = await readRangeAsync(src, first.offset, last.offset + last.length - first.offset, this.path);
        await writeAllAsync(out, copy(slice, buffer));
        copied += slice.length;
      }
      // Most of the file is on disk before the synchronous step, whose fsync then has little to write.
      await out.sync();
      await out.close();
      out = undefined;
      await src.close();
      src = undefined;

      // From here to the end: synchronous, so no append comes between the last copy and the switch.
      const readFd = this.readFd;
      if (this.fd === null || readFd === null) throw new Error('the journal was closed during the removal');
      const tail = this.entries.slice(copied);
      at = this.head;
      const tempFd = fs.openSync(temp, 'a');
      try {
        if (tail.length > 0) {
          const first = tail[0]!;
          const last = tail.at(-1)!;
          writeAllSync(tempFd, copy(tail, readRange(readFd, first.offset, last.offset + last.length - first.offset, this.path)));
        }
        const tombstone = Buffer.from(JSON.stringify({ k: 'deleted', run_ids: [...gone], at } satisfies JournalLine) + '\n', 'utf8');
        writeAllSync(tempFd, tombstone);
        size += tombstone.length;
        fs.fsyncSync(tempFd);
      } finally {
        fs.closeSync(tempFd);
      }
      fs.renameSync(temp, this.path);
    } catch (error) {
      await out?.close().catch(() => undefined);
      await src?.close().catch(() => undefined);
      if (created) fs.rmSync(temp, { force: true });
      throw new JournalRewriteError(this.path, errorReason(error));
    }
    fsyncDirectory(path.dirname(this.path));
    // The new file is in place: only now does the journal forget the runs.
    this.floor = at;
    this.applyCompaction(compaction);
    for (const id of gone) {
      this.tombstones.delete(id); // re-inserted: newest last, in the order deletedSince reports
      this.tombstones.set(id, at);
      this.runFacts.delete(id);
      this.openRunsById.delete(id);
      this.importedRuns.delete(id);
    }
    for (const id of goneIds) this.ids.delete(id);
    this.entries = kept; // not splice(…, ...kept): hundreds of thousands of arguments overflow the stack
    this.size = size;
    // The old descriptors point at the replaced file. Closed off the event loop: closing the last
    // one frees the old file's blocks, which takes tens of ms on a large journal.
    for (const old of [this.fd, this.readFd]) if (old !== null) fs.close(old, () => undefined);
    this.fd = null;
    this.readFd = null;
    this.fd = fs.openSync(this.path, 'a');
    this.readFd = fs.openSync(this.path, 'r');
    return at;
  }

  private notify(slice: JournalSlice): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(slice);
      } catch (error) {
        // The events are already durable; one failing listener must not starve the others.
        this.log(`event journal: a subscriber failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  /** Reads the file, indexing every event line. `clean` = appending to it as it is stays correct. */
  private load(): { report: JournalLoadReport; clean: boolean; events: RunEvent[] | null } {
    let buffer: Buffer;
    try {
      buffer = fs.readFileSync(this.path);
    } catch (error) {
      if (!isNotFound(error)) throw new Error(`Cannot read the event journal ${this.path}: ${error instanceof Error ? error.message : String(error)}`);
      this.journalId = randomUUID();
      return { report: { events: 0, invalidLines: 0, tornTail: false }, clean: false, events: [] };
    }
    const invalid: string[] = [];
    const events: RunEvent[] = [];
    let upgrade = false;
    let tornTail = false;
    let offset = 0;
    while (offset < buffer.length) {
      const end = buffer.indexOf(0x0a, offset);
      if (end === -1) {
        // Every complete line ends with '\n': this one was cut short by a crash.
        tornTail = buffer.toString('utf8', offset).trim().length > 0;
        if (!tornTail) upgrade = true; // trailing blanks: rewrite so the next append starts a line
        break;
      }
      const line = buffer.toString('utf8', offset, end);
      const length = end + 1 - offset;
      const start = offset;
      offset = end + 1;
      if (line.trim().length === 0) continue;
      const entry = parseLine(line);
      if (!entry) {
        invalid.push(line);
        continue;
      }
      switch (entry.k) {
        case 'journal':
          if (this.journalId === '') this.journalId = entry.id;
          break;
        case 'event': {
          if (this.ids.has(entry.event.id)) {
            upgrade = true;
            break;
          }
          const pos = entry.pos ?? (this.entries.at(-1)?.pos ?? 0) + 1;
          if (entry.pos === undefined || pos <= (this.entries.at(-1)?.pos ?? 0)) upgrade = true;
          this.entries.push({ pos, offset: start, length });
          this.ids.add(entry.event.id);
          events.push(entry.event);
          this.track(entry.event);
          break;
        }
        case 'ack':
          upgrade = true;
          break;
        case 'run':
          this.openRunsById.set(entry.run_id, { run_id: entry.run_id, next_seq: entry.next_seq, rounds: entry.rounds });
          break;
        case 'imported':
          for (const runId of entry.run_ids) this.importedRuns.add(runId);
          break;
        case 'deleted':
          this.floor = Math.max(this.floor, entry.at);
          for (const runId of entry.run_ids) this.tombstones.set(runId, Math.max(entry.at, this.tombstones.get(runId) ?? 0));
          break;
        case 'compacted':
          this.compacted = Math.max(this.compacted, entry.through);
          this.floor = Math.max(this.floor, entry.through);
          break;
      }
    }
    // More tombstones than the bound (a journal from before compaction, or a lower bound): compacted by rewriting now.
    if (this.tombstones.size > this.maxTombstones) {
      this.applyCompaction(this.compaction());
      upgrade = true;
    }
    this.size = offset;
    if (this.journalId === '') {
      this.journalId = randomUUID();
      upgrade = true;
    }
    if (invalid.length > 0) {
      fs.appendFileSync(`${this.path}.invalid`, invalid.map((line) => line + '\n').join(''));
      this.log(`event journal: skipped ${invalid.length} invalid line(s); copied to ${this.path}.invalid`);
    }
    if (tornTail) this.log('event journal: skipped a torn last line (interrupted write)');
    const clean = !upgrade && !tornTail && invalid.length === 0;
    return { report: { events: this.entries.length, invalidLines: invalid.length, tornTail }, clean, events: clean ? null : events };
  }

  /**
   * Writes the journal afresh (temp file + rename: atomic on one volume): its header, where open
   * runs stand, then every event with its position (legacy lines get theirs in file order).
   */
  private rewrite(events: RunEvent[] | null): void {
    if (!events) return;
    const head = this.headText();
    let size = Buffer.byteLength(head, 'utf8');
    const lines: string[] = [head];
    let pos = 0;
    const entries: Entry[] = [];
    for (const [i, event] of events.entries()) {
      pos = Math.max(pos + 1, this.entries[i]?.pos ?? 0);
      const line = JSON.stringify({ k: 'event', pos, event } satisfies JournalLine) + '\n';
      const length = Buffer.byteLength(line, 'utf8');
      entries.push({ pos, offset: size, length });
      size += length;
      lines.push(line);
    }
    const temp = `${this.path}.${process.pid}.tmp`;
    const tempFd = fs.openSync(temp, 'w');
    try {
      writeAllSync(tempFd, lines.join(''));
      fs.fsyncSync(tempFd);
    } finally {
      fs.closeSync(tempFd);
    }
    fs.renameSync(temp, this.path);
    fsyncDirectory(path.dirname(this.path));
    this.entries = entries;
    this.size = size;
  }
}

/** Tombstones a rewrite leaves out, and the compaction mark it writes instead. */
interface Compaction {
  dropped: ReadonlySet<string>;
  through: number;
}

/** Index of the first entry whose position is greater than `after` (entries are sorted by position). */
function firstAfter(entries: readonly Entry[], after: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((entries[mid]?.pos ?? 0) <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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

const FIRST_RUN_ID = /"run_id":"((?:[^"\\]|\\.)*)"/;
const FIRST_ID = /"id":"((?:[^"\\]|\\.)*)"/;

/**
 * An event line's envelope ids without parsing the whole line (removing runs from a large journal
 * would spend most of its time there). Lines are written from parsed events, whose keys come in the
 * schema's order (type, id, run_id, …): the first "id" and "run_id" keys are the envelope's.
 */
function lineIds(line: string): { id: string; run_id: string } {
  const runId = FIRST_RUN_ID.exec(line);
  const id = FIRST_ID.exec(line);
  if (runId?.[1] !== undefined && id?.[1] !== undefined) return { id: JSON.parse(`"${id[1]}"`) as string, run_id: JSON.parse(`"${runId[1]}"`) as string };
  return (JSON.parse(line) as { event: RunEvent }).event;
}

/** Events copied per read while `remove` rewrites the journal (a few ms of work between turns of the event loop). */
const REWRITE_SLICE = 400;

const RUN_ID_KEY = Buffer.from('"run_id":"', 'utf8');

/** An event line's run id, read from its bytes (the envelope's run_id is the first one: see lineIds). */
function lineRunId(line: Buffer): string {
  const start = line.indexOf(RUN_ID_KEY);
  const end = start === -1 ? -1 : line.indexOf(0x22, start + RUN_ID_KEY.length);
  const raw = end === -1 ? undefined : line.subarray(start + RUN_ID_KEY.length, end);
  // An escaped character (a backslash) needs the full decoding.
  return raw && !raw.includes(0x5c) ? raw.toString('utf8') : lineIds(line.toString('utf8')).run_id;
}
/** Events left for `remove`'s synchronous last step (appends made while it copied). */
const REWRITE_TAIL_SYNC = 500;

async function readRangeAsync(handle: FileHandle, offset: number, length: number, file: string): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, done, length - done, offset + done);
    if (bytesRead === 0) throw new Error(`The event journal ${file} is shorter than its index (changed by someone else?)`);
    done += bytesRead;
  }
  return buffer;
}

async function writeAllAsync(handle: FileHandle, buffer: Buffer): Promise<void> {
  let offset = 0;
  while (offset < buffer.length) offset += (await handle.write(buffer, offset, buffer.length - offset)).bytesWritten;
}

/** An error's errno code and message, for a person to act on. */
function errorReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.startsWith(code) ? `${code}: ${error.message}` : error.message;
}

function readRange(fd: number, offset: number, length: number, file: string): Buffer {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, buffer, done, length - done, offset + done);
    if (n === 0) throw new Error(`The event journal ${file} is shorter than its index (changed by someone else?)`);
    done += n;
  }
  return buffer;
}

function writeAllSync(fd: number, text: string | Buffer): void {
  const buffer = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
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
