import type { RunEvent } from '@shared/contracts/events';
import type { EventJournal, JournalSlice } from './event-journal';

/** What a page session is sent: consecutive journal events and where they sit in the journal. */
export interface FeedFrame {
  events: RunEvent[];
  cursor: { journal: string; after: number; position: number };
}

/** Where a session asks to start: after `after` of the journal `journal` (omitted: from the beginning). */
export interface FeedStart {
  journal?: string | undefined;
  after?: number | undefined;
}

export interface FeedOptions {
  /** Events per backfill frame. Default 500. */
  batch?: number;
  /** How the backfill yields between frames (so requests and live runs are served meanwhile). */
  defer?: (next: () => void) => void;
  log?: (line: string) => void;
}

interface Reader {
  push(frame: FeedFrame): void;
  /** Position of the last event sent to this session. */
  cursor: number;
  /** Caught up: new events go straight out as they are appended. */
  live: boolean;
  pumping: boolean;
  closed: boolean;
}

/**
 * Every page session reads the journal with its own cursor: it is sent what follows the cursor it
 * subscribed with (in frames of `batch`, yielding between them), then live events. No session can
 * take anything away from another; a session that reconnects resumes from the cursor it stored.
 */
export class JournalFeed {
  private readonly readers = new Map<string, Reader>();
  private readonly batch: number;
  private readonly defer: (next: () => void) => void;
  private readonly log: (line: string) => void;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly journal: EventJournal,
    options: FeedOptions = {},
  ) {
    this.batch = Math.max(1, options.batch ?? 500);
    this.defer = options.defer ?? ((next) => setImmediate(next));
    this.log = options.log ?? ((line) => console.error(line));
    this.unsubscribe = journal.subscribe((slice) => this.onAppend(slice));
  }

  /**
   * (Re)starts a session's feed. A cursor from another journal (another data folder, a journal
   * started afresh) or one past the end starts from the beginning: storing is idempotent in the
   * page, missing something is not. Returns where the feed starts and the journal's head.
   */
  attach(sessionId: string, push: (frame: FeedFrame) => void, start: FeedStart): { journal: string; after: number; head: number } {
    this.detach(sessionId);
    const head = this.journal.head;
    const sameJournal = start.journal === undefined || start.journal === this.journal.id;
    const asked = start.after ?? 0;
    const after = sameJournal && asked <= head ? asked : 0;
    const reader: Reader = { push, cursor: after, live: false, pumping: false, closed: false };
    this.readers.set(sessionId, reader);
    this.pump(reader);
    return { journal: this.journal.id, after, head };
  }

  detach(sessionId: string): void {
    const reader = this.readers.get(sessionId);
    if (reader) reader.closed = true;
    this.readers.delete(sessionId);
  }

  close(): void {
    for (const id of [...this.readers.keys()]) this.detach(id);
    this.unsubscribe();
  }

  private pump(reader: Reader): void {
    if (reader.pumping || reader.closed) return;
    reader.pumping = true;
    this.defer(() => {
      reader.pumping = false;
      if (reader.closed) return;
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
      if (slice.after === reader.cursor) this.send(reader, slice);
      else {
        reader.live = false;
        this.pump(reader);
      }
    }
  }

  private send(reader: Reader, slice: JournalSlice): void {
    reader.cursor = slice.position;
    try {
      reader.push({ events: slice.events, cursor: { journal: this.journal.id, after: slice.after, position: slice.position } });
    } catch (error) {
      // A dead connection; its session resubscribes with its own stored cursor.
      this.log(`event journal: pushing to a session failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
