import type { RunEvent } from '@shared/contracts/events';
import type { EventJournal, JournalSlice } from './event-journal';

/** What a page session is sent: consecutive journal events and where they sit in the journal. */
export interface FeedFrame {
  events: RunEvent[];
  cursor: { journal: string; after: number; position: number };
  /** The runs among the events that came from an imported trace (absent: none did). */
  imported?: string[];
}

/**
 * Where a session asks to start: after `after` of the journal `journal` (omitted: from the beginning).
 * `window`: at most this many frames in flight, sent on as the session acknowledges what it stored
 * (omitted: an older page, sent everything without waiting).
 */
export interface FeedStart {
  journal?: string | undefined;
  after?: number | undefined;
  window?: number | undefined;
  /** The compaction mark this session's page has reconciled its runs against (attach's `reconcile`). */
  reconciled?: number | undefined;
}

export interface FeedOptions {
  /** Events per backfill frame. Default 500. */
  batch?: number;
  /** How the backfill yields between frames (so requests and live runs are served meanwhile). */
  defer?: (next: () => void) => void;
  log?: (line: string) => void;
}

/** Tombstones sent per frame. */
const DELETED_BATCH = 1_000;

interface Reader {
  push(frame: FeedFrame): void;
  /** Runs removed from the journal that this session may hold. */
  deleted?: ((runIds: string[]) => void) | undefined;
  /** Position of the last event sent to this session. */
  cursor: number;
  /** Caught up: new events go straight out as they are appended. */
  live: boolean;
  pumping: boolean;
  closed: boolean;
  window?: number | undefined;
  /** Positions of the frames sent and not yet acknowledged, oldest first. */
  inFlight: number[];
}

const windowFull = (reader: Reader) => reader.window !== undefined && reader.inFlight.length >= reader.window;

/**
 * Every page session reads the journal with its own cursor: it is sent what follows the cursor it
 * subscribed with (in frames of `batch`, yielding between them), then live events. No session can
 * take anything away from another; a session that reconnects resumes from the cursor it stored.
 * A session with a window keeps at most that many frames in flight (credit): with 100k events
 * behind it, the host does not queue them all in the socket while the page stores the first.
 */
export class JournalFeed {
  private readonly readers = new Map<string, Reader>();
  private readonly batch: number;
  private readonly defer: (next: () => void) => void;
  private readonly log: (line: string) => void;
  private readonly unsubscribe: () => void;
  private readonly unsubscribeRemovals: () => void;

  constructor(
    private readonly journal: EventJournal,
    options: FeedOptions = {},
  ) {
    this.batch = Math.max(1, options.batch ?? 500);
    this.defer = options.defer ?? ((next) => setImmediate(next));
    this.log = options.log ?? ((line) => console.error(line));
    this.unsubscribe = journal.subscribe((slice) => this.onAppend(slice));
    this.unsubscribeRemovals = journal.onRemoved(({ run_ids }) => {
      for (const reader of this.readers.values()) this.sendDeleted(reader, run_ids);
    });
  }

  /**
   * (Re)starts a session's feed. A cursor from another journal (another data folder, a journal
   * started afresh) or one past the end starts from the beginning: storing is idempotent in the
   * page, missing something is not. Returns where the feed starts and the journal's head.
   * A session resuming from a cursor is first told (`deleted`, before any event) which runs were
   * removed since that cursor: it may hold them. One starting from the beginning holds nothing of this journal.
   * A cursor at or before the journal's compaction mark may hold runs whose tombstones were compacted away:
   * nothing is sent (`reconcile`: the mark) until the session attaches again saying it reconciled its runs
   * up to that mark (it asked which of them the journal still has and deleted the rest).
   */
  attach(
    sessionId: string,
    push: (frame: FeedFrame) => void,
    start: FeedStart,
    deleted?: (runIds: string[]) => void,
  ): { journal: string; after: number; head: number; deleted?: number; reconcile?: number } {
    this.detach(sessionId);
    const head = this.journal.head;
    const sameJournal = start.journal === undefined || start.journal === this.journal.id;
    const asked = start.after ?? 0;
    const after = sameJournal && asked <= head ? asked : 0;
    const mark = this.journal.compactedThrough;
    if (after > 0 && after <= mark && (start.reconciled ?? 0) < mark) return { journal: this.journal.id, after, head, reconcile: mark };
    const reader: Reader = { push, deleted, cursor: after, live: false, pumping: false, closed: false, window: start.window, inFlight: [] };
    this.readers.set(sessionId, reader);
    const gone = after > 0 ? this.journal.deletedSince(after) : [];
    this.sendDeleted(reader, gone);
    this.pump(reader);
    return { journal: this.journal.id, after, head, ...(gone.length > 0 ? { deleted: gone.length } : {}) };
  }

  /**
   * The session stored everything up to `position` of `journal`: the frames up to there are no
   * longer in flight, and what waited for room goes out. False when the session or journal is not this one's.
   */
  acknowledge(sessionId: string, stored: { journal: string; position: number }): boolean {
    const reader = this.readers.get(sessionId);
    if (!reader || stored.journal !== this.journal.id) return false;
    while (reader.inFlight.length > 0 && (reader.inFlight[0] ?? 0) <= stored.position) reader.inFlight.shift();
    if (!reader.live) this.pump(reader);
    return true;
  }

  detach(sessionId: string): void {
    const reader = this.readers.get(sessionId);
    if (reader) reader.closed = true;
    this.readers.delete(sessionId);
  }

  close(): void {
    for (const id of [...this.readers.keys()]) this.detach(id);
    this.unsubscribe();
    this.unsubscribeRemovals();
  }

  private sendDeleted(reader: Reader, runIds: readonly string[]): void {
    if (!reader.deleted) return;
    for (let i = 0; i < runIds.length; i += DELETED_BATCH) {
      try {
        reader.deleted(runIds.slice(i, i + DELETED_BATCH));
      } catch (error) {
        // A dead connection: the session is told again when it resubscribes from its stored cursor.
        this.log(`event journal: telling a session of deleted runs failed: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
    }
  }

  private pump(reader: Reader): void {
    if (reader.pumping || reader.closed) return;
    reader.pumping = true;
    this.defer(() => {
      reader.pumping = false;
      // No room: the session's next acknowledgement pumps again.
      if (reader.closed || windowFull(reader)) return;
      let slice: JournalSlice;
      try {
        slice = this.journal.read(reader.cursor, this.batch);
      } catch (error) {
        // The session keeps its cursor; it gets the rest when it subscribes again.
        this.log(`event journal: a backfill read failed: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      if (slice.events.length === 0) {
        reader.live = true;
        return;
      }
      this.send(reader, slice);
      this.pump(reader);
    });
  }

  private onAppend(slice: JournalSlice): void {
    for (const reader of this.readers.values()) {
      if (!reader.live) continue; // its backfill reads up to the head, these included
      if (slice.after === reader.cursor && !windowFull(reader)) this.send(reader, slice);
      else {
        reader.live = false;
        this.pump(reader);
      }
    }
  }

  private send(reader: Reader, slice: JournalSlice): void {
    reader.cursor = slice.position;
    if (reader.window !== undefined) reader.inFlight.push(slice.position);
    try {
      reader.push({ events: slice.events, cursor: { journal: this.journal.id, after: slice.after, position: slice.position }, ...(slice.imported ? { imported: slice.imported } : {}) });
    } catch (error) {
      // A dead connection; its session resubscribes with its own stored cursor.
      this.log(`event journal: pushing to a session failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
