import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { RunEvent } from '@shared/contracts/events';
import { summarize, type RunRow } from '@shared/history/run-summary';
import { runWords } from '@shared/history/search-words';
import { openHistoryDb, type HistoryDb } from './history-db';
import { migrateLegacyJournal, type LegacyEvent } from './legacy-journal';
import type { JournalLoadReport, OpenRun } from './journal-report';
export type { JournalLoadReport, OpenRun } from './journal-report';
import { HistoryFold } from './history-fold';
import { LearningStore } from './learning-store';
import { PromotionStore } from './promotion-store';
import { childRunIdsQuery, runsQuery, searchQuery, type ListedRun, type RunsPage, type RunsQuery } from './history-queries';

/**
 * The host's run history (DESIGN.md §2, issues 9 and 26): every event of every run, in the history
 * database (history-db.ts), the durable source of truth. A page's IndexedDB is an index of it:
 * every page session keeps its own cursor (a position) and reads what follows it, so nothing one
 * page does can drop an event for another.
 *
 * - Positions grow by one per event and survive restarts. Removed positions are never handed out
 *   again (`floor`): the remaining events keep theirs, so every page cursor stays meaningful.
 * - An event's identity is its parsed id; a run's place for it is (run_id, seq), unique. A finished
 *   run never changes: a second `run.finished`, or an event at a place the run already holds, is
 *   refused (counted, never stored).
 * - Each append is one transaction with one sync, committed before anyone is told. The host's
 *   windowed appends (journal-writer.ts, `deferSync`) commit on this thread and sync on Node's
 *   thread pool (an fdatasync of the write-ahead log), so the event loop does not wait for the disk:
 *   their subscribers are told, in position order, only once that sync is done, and `read` never
 *   hands out what is not yet told.
 * - A removal is a transaction too: it takes exactly the runs asked, records a tombstone so pages
 *   that hold them delete them, and frees the space. Tombstones are compacted past `maxTombstones`
 *   (a page whose cursor is at or before the compaction mark reconciles: journal-feed.ts).
 * - A journal written by an older Steward (`outbox.jsonl`) is moved in at the first open, resumably
 *   (legacy-journal.ts), and kept beside it as a backup.
 */

export interface EventJournalOptions {
  /** Where to report refused events, migration progress and listener failures. Default: console.error. */
  log?: (line: string) => void;
  /** Run ids kept as tombstones before the oldest are compacted (see above). Default MAX_TOMBSTONES. */
  maxTombstones?: number;
  /** A journal an older Steward wrote (outbox.jsonl): moved into the database when first opened. */
  legacyJournal?: string;
  /** How long a write waits for another process's (a steward command's) before it fails. Default 10 s. */
  busyTimeoutMs?: number;
}

/** Tombstones kept by default: a page offline through more deletions than this reconciles once (one request per 1,000 of its runs). */
export const MAX_TOMBSTONES = 10_000;


/** A run of consecutive journal events: `after` is the position before the first, `position` that of the last. */
export interface JournalSlice {
  events: RunEvent[];
  after: number;
  position: number;
  /** Appended by another connection (a steward command writing its run with no app), noticed here afterwards (catchUp). */
  foreign?: boolean;
  /** The runs among these events that came from an imported trace (they never ran here): a page marks their rows. */
  imported?: string[];
}

/** The runs these events belong to, each once, in the order they first appear. */
function distinctRuns(events: readonly RunEvent[]): string[] {
  return [...new Set(events.map((event) => event.run_id))];
}

/** Events another connection appended, told to subscribers this many at a time. */
const FOREIGN_BATCH = 500;

export type JournalListener = (slice: JournalSlice) => void;


/** Runs removed together, and the journal's head when they were: pages at or before it are told. */
export interface JournalRemoval {
  run_ids: string[];
  at: number;
}
export type RemovalListener = (removal: JournalRemoval) => void;

/** What retention needs to know of a run. */
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
  /** A child run's parent (a workflow node's or an agent's workflow tool's run): the family goes with its root. */
  parent_run_id?: string;
}

/** Removing runs failed: nothing was removed. */
export class JournalRewriteError extends Error {
  readonly code = 'rewrite_failed' as const;
  constructor(
    readonly journalPath: string,
    readonly reason: string,
  ) {
    super(
      `Could not delete from the history database ${journalPath} (${reason}), so nothing was deleted. ` +
        (/SQLITE_BUSY|locked/.test(reason)
          ? 'Another Steward process was writing to the history: try again in a moment.'
          : 'Check that the data folder is writable and its disk has free space, then try again.'),
    );
    this.name = 'JournalRewriteError';
  }
}

/** A batch could not be written (disk full, a write error): nothing of it was stored, the history is as it was. */
export class HistoryWriteError extends Error {
  readonly code = 'history_write_failed' as const;
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    const reason = errorReason(cause);
    const full = /SQLITE_FULL|disk is full|ENOSPC/i.test(reason);
    const refused = /SQLITE_IOERR/.test(reason);
    const what = full ? 'the disk is full' : refused ? 'the disk refused the write (it may be full or failing)' : 'the write failed';
    super(
      `Could not write to the history database ${file} (${reason}): ${what}. Nothing of these events was stored; the history is as it was. ` +
        `${full || refused ? 'Free some space on that disk' : 'Check that the data folder is writable'}, and the next events are stored again.`,
    );
    this.name = 'HistoryWriteError';
  }
}

/** How a batch is appended. */
export interface AppendOptions {
  /** The host's engine made these events (typed, never read from outside): not validated again. */
  made?: boolean;
  /** They come from an imported trace. */
  imported?: boolean;
  /**
   * They were parsed as RunEvents where they arrived (a trace line read by the CLI's import, the
   * events of a page's `runs.import`, both checked again by the import): not parsed a second time
   * (an eighth of a large import's time).
   */
  validated?: boolean;
  /**
   * More writes in the same transaction, after the events (issue 26: a round's idempotency-ledger
   * entry commits with its events, one sync). If it throws, nothing is stored and its error is thrown as is.
   */
  within?: () => void;
  /**
   * Commit without waiting for the disk (issue 26: the host's windowed appends): the transaction is
   * committed on this thread with `synchronous = NORMAL`, and the write-ahead log is synced on
   * Node's thread pool. Subscribers are told of these events (and of any appended after them) only
   * once that sync is done, so nobody hears of an event a power cut could take. What must be durable
   * before this returns (a ledger claim, a checkpoint, a committed decision, close) does not set it.
   */
  deferSync?: boolean;
}

/** How many events of a batch were stored, and how many were refused and why. */
export interface AppendResult {
  appended: number;
  /** Same id as a stored event (a repeat: not an error). */
  repeated: number;
  /** A different event at a place (run, seq) the run already holds, or an end for a run that already ended. */
  refused: number;
}

/** The columns of a run's row that its indexes hold (or whose change an index must see) are the same. */
function indexedUnchanged(row: RunColumns, next: Omit<RunColumns, 'n'>): boolean {
  return (
    row.run_id === next.run_id &&
    row.spec_id === next.spec_id &&
    row.name === next.name &&
    row.status === next.status &&
    row.started_at === next.started_at &&
    row.finished_at === next.finished_at &&
    row.imported === next.imported &&
    row.retention_days === next.retention_days &&
    row.retention_runs === next.retention_runs
  );
}

/** A run's row as this connection last stored it (EventJournal.runRows). */
interface FoldedRun {
  row: RunColumns;
  /** Its summary as stored (without words). */
  summary: RunRow;
  /** What its run_words row holds. */
  words: string;
}

interface RunColumns {
  n: number;
  run_id: string;
  name: string;
  status: string;
  next_seq: number;
  rounds: number;
  stored: number;
  imported: number;
  finished_at: string | null;
  retention_days: number | null;
  retention_runs: number | null;
  started_at: string;
  spec_id: string | null;
  summary: string;
}

/**
 * A history's open runs (a handful) by the partial index of runs without an end: left to itself,
 * SQLite's planner scanned the whole runs table in `n` order to skip the sort, about 350 ms at
 * 172,000 runs (10M events), at every host start, resume and deletion (bench/history-scale).
 */
export const OPEN_RUNS_SQL = 'SELECT run_id, next_seq, rounds FROM runs INDEXED BY runs_open WHERE finished_at IS NULL AND imported = ? ORDER BY n';

const meta = {
  id: 'journal_id',
  floor: 'floor',
  compacted: 'compacted',
} as const;

export class EventJournal {
  readonly path: string;
  readonly loadReport: JournalLoadReport;
  private readonly db: HistoryDb;
  private readonly promotionStore: PromotionStore;
  private readonly learningStore: LearningStore;
  /** What is derived from the events when asked: promotion figures, learning examples (history-fold.ts). */
  private readonly folded: HistoryFold;
  private journalId: string;
  private headPos: number;
  private floorPos: number;
  private compacted: number;
  private readonly listeners = new Set<JournalListener>();
  private readonly removalListeners = new Set<RemovalListener>();
  /** Removals run one at a time, in the order asked. */
  private removing: Promise<unknown> = Promise.resolve();
  private readonly maxTombstones: number;
  private readonly log: (line: string) => void;
  private closed = false;
  /** PRAGMA data_version when catchUp last looked: it changes when another connection commits. */
  private seenVersion = -1;
  private readonly sql;
  /** Slices committed and not yet told, in position order; `synced` once the disk holds them. */
  private readonly untold: Array<{ slice: JournalSlice; synced: boolean; gen: number }> = [];
  /** Deferred commits made so far; a sync started after the `gen`th covers it. */
  private commitGen = 0;
  /** The write-ahead log, opened for fdatasync (undefined: not yet opened; null: it cannot be, appends sync as they commit). */
  private walFd: number | null | undefined;
  /** An fdatasync is running on the thread pool; `syncAgain`: commits were made since it started. */
  private syncing = false;
  private syncAgain = false;
  /** Resolved when nothing is left untold. */
  private settledWaiters: Array<() => void> = [];
  /**
   * PRAGMA data_version as the last append saw it: unchanged, no other connection committed since,
   * so the head, the floor and the rows below are still what this connection wrote (issue 26: an
   * append then reads nothing it already knows).
   */
  private appendVersion = -1;
  /**
   * The open runs this connection last folded, as stored: their columns, their summary as parsed,
   * and the words their run_words row holds. Dropped when another connection commits, when a run
   * finishes, and by every write that changes runs outside an append (removals, imports' marks).
   */
  private readonly runRows = new Map<string, FoldedRun>();
  /** Folded inside the append's transaction: into `runRows` when it commits, dropped when it rolls back. */
  private readonly foldedNow = new Map<string, FoldedRun>();
  /** Moved by every insert or delete of a run's row on this connection (committed or not): runCount's kept count is then stale. */
  private runsAddedOrRemoved = 0;
  private runCountKept: { version: number; changes: number; count: number } | undefined;

  private constructor(file: string, options: EventJournalOptions) {
    this.path = file;
    this.log = options.log ?? ((line) => console.error(line));
    this.maxTombstones = Math.max(0, options.maxTombstones ?? MAX_TOMBSTONES);
    this.db = openHistoryDb(file, options.busyTimeoutMs);
    const db = this.db;
    const catchUp = () => this.folded.catchUp();
    this.promotionStore = new PromotionStore(db, catchUp);
    this.learningStore = new LearningStore(db, catchUp);
    this.folded = new HistoryFold(db, [this.promotionStore, this.learningStore]);
    this.sql = {
      getMeta: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
      setMeta: db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      maxPos: db.prepare<[], { pos: number | null }>('SELECT max(pos) AS pos FROM events'),
      countRuns: db.prepare<[], number>('SELECT count(*) FROM runs').pluck(),
      hasId: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM events WHERE id = ?'),
      bodyOfId: db.prepare<[string], { body: string }>('SELECT body FROM events WHERE id = ?'),
      hasPlace: db.prepare<[string, number], { one: number }>('SELECT 1 AS one FROM events WHERE run_id = ? AND seq = ?'),
      bodyAtPlace: db.prepare<[string, number], { body: string }>('SELECT body FROM events WHERE run_id = ? AND seq = ?'),
      // A repeat (its id) or a place the run holds is not stored: `changes` says so, and only then is it looked up (insert).
      insertEvent: db.prepare<[number, string, string, number, string, string]>(
        'INSERT INTO events (pos, id, run_id, seq, type, body) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING ON CONFLICT (run_id, seq) DO NOTHING',
      ),
      readAfter: db.prepare<[number, number], { pos: number; body: string }>('SELECT pos, body FROM events WHERE pos > ? ORDER BY pos LIMIT ?'),
      readTold: db.prepare<[number, number, number], { pos: number; body: string }>('SELECT pos, body FROM events WHERE pos > ? AND pos <= ? ORDER BY pos LIMIT ?'),
      runEvents: db.prepare<[string], { body: string }>('SELECT body FROM events WHERE run_id = ? ORDER BY seq'),
      runEventsAfter: db.prepare<[string, number, number, number], { seq: number; body: string }>('SELECT seq, body FROM events WHERE run_id = ? AND seq > ? AND pos <= ? ORDER BY seq LIMIT ?'),
      getRun: db.prepare<[string], RunColumns>('SELECT * FROM runs WHERE run_id = ?'),
      // Which of these runs (a JSON array of ids) came from an imported trace: one statement a slice.
      importedAmong: db.prepare<[string], { run_id: string }>('SELECT run_id FROM runs WHERE run_id IN (SELECT value FROM json_each(?)) AND imported = 1'),
      hasRun: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM runs WHERE run_id = ?'),
      insertRun: db.prepare(
        `INSERT INTO runs (run_id, spec_id, name, status, started_at, finished_at, next_seq, rounds, stored, imported, retention_days, retention_runs, summary)
         VALUES (@run_id, @spec_id, @name, @status, @started_at, @finished_at, @next_seq, @rounds, @stored, @imported, @retention_days, @retention_runs, @summary)`,
      ),
      // A column added here is compared in indexedUnchanged too, or a commit that changes it takes updateRunProgress and drops it.
      updateRun: db.prepare(
        `UPDATE runs SET spec_id = @spec_id, name = @name, status = @status, started_at = @started_at, finished_at = @finished_at, next_seq = @next_seq,
         rounds = @rounds, stored = @stored, imported = @imported, retention_days = @retention_days, retention_runs = @retention_runs, summary = @summary WHERE n = @n`,
      ),
      // A round's commit moves only these (no index holds them): the runs' indexes are not rewritten (issue 26).
      updateRunProgress: db.prepare<[number, number, number, string, number]>('UPDATE runs SET next_seq = ?, rounds = ?, stored = ?, summary = ? WHERE n = ?'),
      deleteWords: db.prepare<[number]>('DELETE FROM run_words WHERE rowid = ?'),
      insertWords: db.prepare<[number, string]>('INSERT INTO run_words (rowid, words) VALUES (?, ?)'),
      openRuns: db.prepare<[number], OpenRun>(OPEN_RUNS_SQL),
      retentionFacts: db.prepare<[], RunColumns & { parent_run_id: string | null }>(
        "SELECT *, json_extract(summary, '$.parent.run_id') AS parent_run_id FROM runs WHERE spec_id IN (SELECT spec_id FROM runs WHERE retention_days IS NOT NULL OR retention_runs IS NOT NULL)",
      ),
      deleteRunEvents: db.prepare<[string]>('DELETE FROM events WHERE run_id = ?'),
      deleteRun: db.prepare<[number]>('DELETE FROM runs WHERE n = ?'),
      deleteTombstone: db.prepare<[string]>('DELETE FROM tombstones WHERE run_id = ?'),
      insertTombstone: db.prepare<[string, number]>('INSERT INTO tombstones (run_id, at) VALUES (?, ?)'),
      tombstonesSince: db.prepare<[number], { run_id: string }>('SELECT run_id FROM tombstones WHERE at >= ? ORDER BY n'),
      tombstoneCount: db.prepare<[], { c: number }>('SELECT count(*) AS c FROM tombstones'),
      oldestTombstones: db.prepare<[number], { n: number; at: number }>('SELECT n, at FROM tombstones ORDER BY n LIMIT ?'),
      dropTombstonesThrough: db.prepare<[number]>('DELETE FROM tombstones WHERE n <= ?'),
      dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
      syncNormal: db.prepare('PRAGMA synchronous = NORMAL'),
      syncFull: db.prepare('PRAGMA synchronous = FULL'),
    };
    const storedId = this.sql.getMeta.get(meta.id)?.value;
    this.journalId = storedId ?? randomUUID();
    if (!storedId) this.sql.setMeta.run(meta.id, this.journalId);
    this.floorPos = Number(this.sql.getMeta.get(meta.floor)?.value ?? 0);
    this.compacted = Number(this.sql.getMeta.get(meta.compacted)?.value ?? 0);
    this.headPos = this.sql.maxPos.get()?.pos ?? 0;
    this.loadReport = options.legacyJournal
      ? migrateLegacyJournal(options.legacyJournal, {
          db,
          log: this.log,
          adoptIdentity: (id) => {
            this.sql.setMeta.run(meta.id, id);
            this.journalId = id;
          },
          insert: (events) => this.insert(events, { imported: false, legacy: true }),
          markImported: (runIds) => this.markImported(runIds),
          tombstone: (runIds, at) => this.recordTombstones(runIds, at),
          compactedThrough: (through) => this.setCompacted(Math.max(this.compacted, through)),
          openRun: (run) => this.ensureOpenRun(run),
        })
      : { events: 0, invalidLines: 0, tornTail: false };
    // More tombstones than the bound (a lower bound, or a journal moved in from before compaction): compacted now.
    this.compactTombstones(0);
    // The migration folded runs through its own transactions: the next append reads them back.
    this.foldedNow.clear();
    this.runRows.clear();
  }

  /** Opens the history database at `file` (history-db.ts: historyPath(dataDir)). */
  static open(file: string, options: EventJournalOptions = {}): EventJournal {
    return new EventJournal(file, options);
  }

  /**
   * The connection, for the idempotency ledger that shares it in the host (mcp/journal-ledger.ts):
   * its writes go through `append`'s `within`, so a round's entry and events are one transaction.
   */
  get connection(): HistoryDb {
    this.requireOpen();
    return this.db;
  }

  /** Promotion figures from this history, folded when asked (promotion-store.ts). */
  get promotion(): PromotionStore {
    this.requireOpen();
    return this.promotionStore;
  }

  /** The learning examples of this history, folded when asked (learning-store.ts). */
  get learning(): LearningStore {
    this.requireOpen();
    return this.learningStore;
  }

  /** Folds what was appended since the last fold (history-fold.ts); `foldChunk` one chunk of it, `settleChunk` a piece of what reads would do first. */
  get fold(): Pick<HistoryFold, 'catchUp' | 'foldChunk' | 'settleChunk' | 'foldedThrough'> {
    this.requireOpen();
    return this.folded;
  }

  /** This journal's identity: a cursor is only meaningful for the journal that gave it. */
  get id(): string {
    return this.journalId;
  }

  /** The position of the last event (0 when empty); never below a removal's. */
  get head(): number {
    return Math.max(this.headPos, this.floorPos);
  }

  /**
   * Runs in the history: a count over the runs table (one row per run, not per event), 7 ms at
   * 172,000 runs, so kept until a run is added or removed here or another connection commits (its
   * `data_version`): a fresh page lists a 10M-event history 250 rows a request, each with the total.
   */
  get runCount(): number {
    this.requireOpen();
    const version = this.sql.dataVersion.get() ?? -1;
    const kept = this.runCountKept;
    if (kept && kept.version === version && kept.changes === this.runsAddedOrRemoved) return kept.count;
    const count = this.sql.countRuns.get() ?? 0;
    this.runCountKept = { version, changes: this.runsAddedOrRemoved, count };
    return count;
  }

  /** Events stored (a count over the table: for reports and tests, not a hot path). */
  get count(): number {
    return (this.db.prepare('SELECT count(*) AS c FROM events').get() as { c: number }).c;
  }

  /**
   * Writes the events durably (one transaction, one sync), then notifies subscribers.
   * An event whose id is stored is skipped (ids are deterministic: a repeat is the same event); one
   * at a place its run already holds, or a second end of a run, is refused and logged.
   * Returns how many were appended. `made` = the host's engine made these events (typed, never read
   * from outside): they are not validated again.
   */
  append(events: readonly RunEvent[], options: AppendOptions = {}): number {
    return this.appendReport(events, options).appended;
  }

  /** `append`, saying what it refused. */
  appendReport(events: readonly RunEvent[], options: AppendOptions = {}): AppendResult {
    this.requireOpen();
    // Validate what came from elsewhere: identity and places are read from parsed events only.
    const parsed = options.made || options.validated ? events : events.map((raw) => RunEvent.parse(raw));
    let result: ReturnType<EventJournal['insert']>;
    const known = this.head;
    const headBefore = this.headPos;
    let withinFailed = false;
    // Deferred only when the write-ahead log can be synced from here (a journal not in WAL mode syncs as it commits).
    const deferred = options.deferSync === true && this.wal() !== null;
    if (deferred) this.sql.syncNormal.run();
    this.foldedNow.clear();
    try {
      // IMMEDIATE: the write lock first (waiting out another process's write), so the head read inside is the one written after.
      result = this.db
        .transaction(() => {
          const inserted = this.insert(parsed.map((event) => ({ event })), { imported: options.imported ?? false, legacy: false, kept: true });
          if (options.within) {
            withinFailed = true;
            options.within();
            withinFailed = false;
          }
          return inserted;
        })
        .immediate();
      for (const [runId, folded] of this.foldedNow) {
        // A finished run never changes: it leaves the cache (a late event reads its row back).
        if (folded.row.finished_at === null) this.runRows.set(runId, folded);
        else this.runRows.delete(runId);
      }
    } catch (error) {
      // Rolled back: the head is where it was, and nothing of the batch is stored.
      this.headPos = headBefore;
      this.foldedNow.clear();
      // The caller's own step refused (a key already claimed): its error as it threw it, nothing stored.
      if (withinFailed) throw error;
      throw new HistoryWriteError(this.path, error);
    } finally {
      // Every other write on this connection (claims, checkpoints, removals, imports) syncs as it commits.
      if (deferred) this.sql.syncFull.run();
    }
    if (result.refused > 0) this.log(`history: refused ${result.refused} event(s) at a place their run already holds (or a second end of a finished run)`);
    // What another connection appended since this one last looked comes first: subscribers are told every event, in order.
    if (result.after > known) this.notifyForeign(known, result.after);
    if (result.stored.length > 0) {
      const slice: JournalSlice = { events: result.stored, after: result.after, position: this.head, ...(options.imported ? { imported: distinctRuns(result.stored) } : {}) };
      if (deferred) {
        this.untold.push({ slice, synced: false, gen: ++this.commitGen });
        this.syncSoon();
      } else {
        // This commit's sync wrote the whole log to disk: what was committed before it is durable too.
        for (const entry of this.untold) entry.synced = true;
        this.untold.push({ slice, synced: true, gen: 0 });
        this.tell();
      }
    }
    return { appended: result.stored.length, repeated: result.repeated, refused: result.refused };
  }

  /**
   * Tells subscribers of the events another connection appended since this one last looked (a steward
   * command writing its run with no app; the host calls this every few hundred ms). One pragma when
   * nothing changed. Returns how many events it told.
   */
  catchUp(): number {
    this.requireOpen();
    const version = Number(this.db.pragma('data_version', { simple: true }));
    if (version === this.seenVersion) return 0;
    this.seenVersion = version;
    const top = this.sql.maxPos.get()?.pos ?? 0;
    return top > this.headPos ? this.notifyForeign(this.head, top) : 0;
  }

  /** Up to `limit` events after `after`, in order. */
  read(after: number, limit: number): JournalSlice {
    this.requireOpen();
    // Never past what subscribers were told: an event committed and not yet synced is not handed out.
    const rows = this.sql.readTold.all(after, this.toldThrough, Math.max(1, limit));
    const last = rows.at(-1);
    if (!last) return { events: [], after, position: after };
    // Rows were validated before they were stored: parsing them again would only cost time.
    return this.withImported({ events: rows.map((row) => JSON.parse(row.body) as RunEvent), after, position: last.pos });
  }

  /** The slice, saying which of its runs came from an imported trace (when any did). */
  private withImported(slice: JournalSlice): JournalSlice {
    const imported = this.sql.importedAmong.all(JSON.stringify(distinctRuns(slice.events))).map((row) => row.run_id);
    return imported.length > 0 ? { ...slice, imported } : slice;
  }

  /** One run's events in sequence order, read by its index (proportional to the run, not the history). */
  runEvents(runId: string): RunEvent[] {
    this.requireOpen();
    return this.sql.runEvents.all(runId).map((row) => JSON.parse(row.body) as RunEvent);
  }

  /**
   * A page of one run's events after `afterSeq`, in sequence order, at most `limit` events and about
   * `maxBytes` of them (at least one): what a page asks for a run whose events it does not keep.
   */
  runEventsPage(runId: string, afterSeq: number, limit: number, maxBytes: number): { events: RunEvent[]; next?: number } {
    this.requireOpen();
    const rows = this.sql.runEventsAfter.all(runId, afterSeq, this.toldThrough, limit + 1);
    const events: RunEvent[] = [];
    let bytes = 0;
    let last = afterSeq;
    for (const row of rows.slice(0, limit)) {
      if (events.length > 0 && bytes + row.body.length > maxBytes) return { events, next: last };
      events.push(JSON.parse(row.body) as RunEvent);
      bytes += row.body.length;
      last = row.seq;
    }
    return rows.length > limit ? { events, next: last } : { events };
  }

  /** The stored event with this id, if any (an import compares what it brings with what is here). */
  eventById(id: string): RunEvent | undefined {
    const row = this.sql.bodyOfId.get(id);
    return row ? (JSON.parse(row.body) as RunEvent) : undefined;
  }

  /** Runs `look` (reads only) in one read transaction: its look-ups share one snapshot and one lock (an import's check of many lines). */
  reading<T>(look: () => T): T {
    this.requireOpen();
    return this.db.transaction(look).deferred();
  }

  /** The stored event at this place of a run, if any. */
  eventAt(runId: string, seq: number): RunEvent | undefined {
    const row = this.sql.bodyAtPlace.get(runId, seq);
    return row ? (JSON.parse(row.body) as RunEvent) : undefined;
  }

  /** A run's row, if the history holds it. */
  run(runId: string): ListedRun | undefined {
    const row = this.sql.getRun.get(runId);
    return row ? storedRun(row) : undefined;
  }

  /** A page of runs, newest first, filtered (history-queries.ts). */
  runsPage(query: RunsQuery = {}): RunsPage {
    this.requireOpen();
    return runsQuery(this.db, query);
  }

  /** The child runs of these runs (issue 29), grandchildren too, by id (history-queries.ts). */
  childRunIds(runIds: readonly string[]): string[] {
    this.requireOpen();
    return childRunIdsQuery(this.db, runIds);
  }

  /** Runs whose words match `text` (every word, by prefix), or whose id is `text` or starts with it; newest first. */
  search(text: string, query: RunsQuery = {}): RunsPage {
    this.requireOpen();
    return searchQuery(this.db, text, query);
  }

  /** This host's runs with events but no `run.finished` (imported runs are not this host's: see importedOpenRuns). */
  openRuns(): OpenRun[] {
    return this.sql.openRuns.all(0);
  }

  /** Imported runs whose trace has no `run.finished` (they were exported unfinished). */
  importedOpenRuns(): OpenRun[] {
    return this.sql.openRuns.all(1);
  }

  /** Whether this run came from an imported trace. */
  isImported(runId: string): boolean {
    return (this.sql.getRun.get(runId)?.imported ?? 0) === 1;
  }

  /** Whether the journal holds this run. */
  hasRun(runId: string): boolean {
    return this.sql.hasRun.get(runId) !== undefined;
  }

  /** The runs retention looks at: those of workflows any of whose runs recorded a retention (runs of others never go). */
  retentionFacts(): JournalRunFacts[] {
    return this.sql.retentionFacts.all().map((row) => ({
      run_id: row.run_id,
      started_at: row.started_at,
      ...(row.spec_id !== null ? { spec_id: row.spec_id } : {}),
      ...(row.parent_run_id !== null ? { parent_run_id: row.parent_run_id } : {}),
      ...(row.finished_at !== null ? { finished_at: row.finished_at } : {}),
      ...(row.retention_days !== null || row.retention_runs !== null
        ? { retention: { ...(row.retention_days !== null ? { days: row.retention_days } : {}), ...(row.retention_runs !== null ? { runs: row.retention_runs } : {}) } }
        : {}),
    }));
  }

  /** Tombstones made at or before this were compacted away (0: none): a page whose cursor is in (0, compactedThrough] must reconcile. */
  get compactedThrough(): number {
    return this.compacted;
  }

  /** Tombstones kept (run ids). */
  get tombstoneCount(): number {
    return this.sql.tombstoneCount.get()?.c ?? 0;
  }

  /** Runs removed when the head was at or after `after`: a page whose cursor is `after` may still hold them. */
  deletedSince(after: number): string[] {
    return this.sql.tombstonesSince.all(after).map((row) => row.run_id);
  }

  /** Called after runs were removed. Returns the unsubscribe function. */
  onRemoved(listener: RemovalListener): () => void {
    this.removalListeners.add(listener);
    return () => {
      this.removalListeners.delete(listener);
    };
  }

  /**
   * Removes every event of these runs in one transaction: the other events keep their positions, and
   * a tombstone records which runs went and where the head stood, so pages that hold them delete
   * them too. Runs it does not hold are ignored. Whether a run may go (not running, not waiting) is
   * the caller's judgement. A failure rejects with JournalRewriteError and changes nothing.
   */
  remove(runIds: readonly string[]): Promise<JournalRemoval> {
    const removal = this.removing.then(() => this.removeNow(runIds));
    this.removing = removal.catch(() => undefined);
    return removal;
  }

  /** Called with each batch after it is durable. Returns the unsubscribe function. */
  subscribe(listener: JournalListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Resolves once every committed event has been told to the subscribers (a deferred append's sync is done). */
  settled(): Promise<void> {
    if (this.untold.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  close(): void {
    if (this.closed) return;
    // What was committed and not yet synced is synced here, and its subscribers told, before they go.
    if (this.untold.some((entry) => !entry.synced) && typeof this.walFd === 'number') {
      this.syncWal(() => fs.fdatasyncSync(this.walFd as number));
      for (const entry of this.untold) entry.synced = true;
    }
    this.tell();
    this.closed = true;
    this.listeners.clear();
    this.removalListeners.clear();
    // A sync still running on the thread pool closes the log's descriptor when it ends.
    if (typeof this.walFd === 'number' && !this.syncing) fs.closeSync(this.walFd);
    this.db.close();
  }

  /** The highest position subscribers were told of (everything, when nothing waits for a sync). */
  private get toldThrough(): number {
    return this.untold[0]?.slice.after ?? Number.MAX_SAFE_INTEGER;
  }

  /** The write-ahead log's descriptor for fdatasync, opened once; null when there is none to sync (not in WAL mode). */
  private wal(): number | null {
    if (this.walFd !== undefined) return this.walFd;
    try {
      this.walFd = String(this.db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal' ? fs.openSync(`${this.path}-wal`, 'r+') : null;
    } catch (error) {
      this.log(`history: appends sync as they commit (the write-ahead log could not be opened: ${errorReason(error)})`);
      this.walFd = null;
    }
    return this.walFd;
  }

  /** Syncs the log on the thread pool; commits made meanwhile are covered by the next sync. */
  private syncSoon(): void {
    if (this.syncing) {
      this.syncAgain = true;
      return;
    }
    const fd = this.walFd;
    if (typeof fd !== 'number') return;
    this.syncing = true;
    const covering = this.commitGen;
    fs.fdatasync(fd, (error) => {
      this.syncing = false;
      if (this.closed) {
        fs.close(fd, () => undefined);
        return;
      }
      // Tried once more here: a failed sync leaves the events stored (they were committed), not known durable.
      if (error) this.syncWal(() => fs.fdatasyncSync(fd));
      for (const entry of this.untold) if (entry.gen <= covering) entry.synced = true;
      this.tell();
      if (this.syncAgain) {
        this.syncAgain = false;
        this.syncSoon();
      }
    });
  }

  private syncWal(sync: () => void): void {
    try {
      sync();
    } catch (error) {
      this.log(
        `history: the disk did not confirm the last events were written (${errorReason(error)}). They are stored and were shown, ` +
          'but a power cut could lose them: check the disk that holds the data folder.',
      );
    }
  }

  /** Tells subscribers the synced slices at the front, in order. */
  private tell(): void {
    while (this.untold[0]?.synced) this.notify(this.untold.shift()!.slice);
    if (this.untold.length === 0 && this.settledWaiters.length > 0) {
      const waiters = this.settledWaiters;
      this.settledWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  private removeNow(runIds: readonly string[]): JournalRemoval {
    if (this.closed) throw new JournalRewriteError(this.path, 'the history was closed before the deletion ran');
    const at = this.head;
    let gone: string[];
    try {
      gone = this.db.transaction(() => {
        const removed: string[] = [];
        for (const runId of new Set(runIds)) {
          const row = this.sql.getRun.get(runId);
          if (!row) continue;
          this.sql.deleteRunEvents.run(runId);
          this.sql.deleteWords.run(row.n);
          this.sql.deleteRun.run(row.n);
          this.runsAddedOrRemoved += 1;
          removed.push(runId);
        }
        if (removed.length === 0) return removed;
        this.folded.forget(removed);
        // Room for this removal's tombstones first: a removal never drops its own.
        this.compactTombstones(removed.length);
        this.recordTombstones(removed, at);
        this.sql.setMeta.run(meta.floor, String(at));
        return removed;
      }).immediate();
    } catch (error) {
      throw new JournalRewriteError(this.path, errorReason(error));
    }
    for (const runId of gone) this.runRows.delete(runId);
    if (gone.length === 0) return { run_ids: [], at };
    // Its commit synced the whole log: events committed before it are durable, and told before the removal.
    for (const entry of this.untold) entry.synced = true;
    this.tell();
    this.floorPos = at;
    try {
      // Frees the pages the runs held, so the file shrinks; a failure here loses nothing.
      this.db.pragma('incremental_vacuum');
    } catch (error) {
      this.log(`history: could not free the deleted runs' space yet (${errorReason(error)})`);
    }
    const removal = { run_ids: gone, at };
    for (const listener of [...this.removalListeners]) {
      try {
        listener(removal);
      } catch (error) {
        this.log(`event journal: a removal listener failed: ${errorReason(error)}`);
      }
    }
    return removal;
  }

  /** Inside a transaction: stores what is new, folds each run's row. */
  /** `kept`: an append's (appendReport): runs' rows are folded from and into what this connection keeps (runRows). */
  private insert(entries: readonly LegacyEvent[], options: { imported: boolean; legacy: boolean; kept?: boolean }): { stored: RunEvent[]; after: number; repeated: number; refused: number } {
    const stored: RunEvent[] = [];
    const ids = new Set<string>();
    const places = new Set<string>();
    const ended = new Set<string>();
    let repeated = 0;
    let refused = 0;
    const byRun = new Map<string, RunEvent[]>();
    // Inside the write transaction: were another process ever to append (it holds the folder lock
    // to, so it should not), positions still follow the database's own head, never a stale copy;
    // and the floor: a removal another process made meanwhile never has its positions handed out
    // again here. Read again only when another connection committed since the last append (the
    // head and floor this connection writes it keeps itself); so are the runs' rows it keeps.
    const version = this.sql.dataVersion.get();
    if (version !== this.appendVersion) {
      this.appendVersion = version ?? -1;
      this.runRows.clear();
      this.headPos = Math.max(this.headPos, this.sql.maxPos.get()?.pos ?? 0);
      this.floorPos = Math.max(this.floorPos, Number(this.sql.getMeta.get(meta.floor)?.value ?? 0));
    }
    const after = this.head;
    for (const { event, pos } of entries) {
      const place = `${event.run_id}\u0000${event.seq}`;
      if (ids.has(event.id)) {
        repeated += 1;
        continue;
      }
      if (places.has(place)) {
        // An id stored before is a repeat wherever it claims to be (as an id taken in this batch is, above).
        if (this.sql.hasId.get(event.id)) repeated += 1;
        else refused += 1;
        continue;
      }
      if (event.type === 'run.finished') {
        // A repeat of the stored end is a repeat, not a second end.
        if (this.sql.hasId.get(event.id)) {
          repeated += 1;
          continue;
        }
        if (ended.has(event.run_id) || this.sql.hasPlace.get(event.run_id, event.seq) || this.sql.getRun.get(event.run_id)?.finished_at) {
          refused += 1;
          continue;
        }
        ended.add(event.run_id);
      }
      // A legacy line keeps the position it had (pages' cursors carry over); positions only grow.
      // (Compared with the events' own head: a legacy tombstone's floor comes first in the file, above the events after it.)
      const at = options.legacy && pos !== undefined && pos > this.headPos ? pos : this.head + 1;
      // Not stored when its id or its place is taken (the unique keys decide, in the same statement):
      // a stored id is a repeat, a place held by another event a refusal.
      if (this.sql.insertEvent.run(at, event.id, event.run_id, event.seq, event.type, JSON.stringify(event)).changes === 0) {
        if (this.sql.hasId.get(event.id)) repeated += 1;
        else refused += 1;
        continue;
      }
      ids.add(event.id);
      places.add(place);
      this.headPos = at;
      stored.push(event);
      const batch = byRun.get(event.run_id);
      if (batch) batch.push(event);
      else byRun.set(event.run_id, [event]);
    }
    for (const [runId, batch] of byRun) this.foldRun(runId, batch, options.imported, options.kept === true);
    return { stored, after, repeated, refused };
  }

  private foldRun(runId: string, batch: RunEvent[], imported: boolean, keep: boolean): void {
    // This connection's own fold of the run, when it has one still current: no row read, no summary parsed.
    const kept = keep ? (this.foldedNow.get(runId) ?? this.runRows.get(runId)) : undefined;
    const row = kept ? kept.row : this.sql.getRun.get(runId);
    const sorted = [...batch].sort((a, b) => a.seq - b.seq);
    const before = kept ? kept.summary : row ? (JSON.parse(row.summary) as RunRow) : undefined;
    const summary = summarize(before, sorted, sorted.length);
    if (!summary) return;
    let nextSeq = row?.next_seq ?? 0;
    let rounds = row?.rounds ?? 0;
    let finishedAt = row?.finished_at ?? null;
    let startedAt = row?.started_at ?? sorted[0]!.ts;
    let days = row?.retention_days ?? null;
    let keepRuns = row?.retention_runs ?? null;
    let specId = row?.spec_id ?? null;
    for (const e of sorted) {
      nextSeq = Math.max(nextSeq, e.seq + 1);
      if (e.type === 'round.completed') rounds = Math.max(rounds, e.round + 1);
      if (e.type === 'run.finished') finishedAt = e.ts;
      if (e.type === 'run.started' || e.type === 'workflow.started') {
        startedAt = e.ts;
        specId = e.type === 'run.started' ? e.spec_id : e.workflow_id;
        if (e.retention) {
          days = e.retention.days ?? null;
          keepRuns = e.retention.runs ?? null;
        }
      }
    }
    // `words` are derived from the row (runWords): the database keeps them once, in run_words.
    const { words, ...stored } = summary;
    const columns = {
      run_id: runId,
      spec_id: specId,
      name: summary.spec_name,
      status: summary.status,
      started_at: startedAt,
      finished_at: finishedAt,
      next_seq: nextSeq,
      rounds,
      stored: (row?.stored ?? 0) + sorted.length,
      imported: row?.imported === 1 || imported ? 1 : 0,
      retention_days: days,
      retention_runs: keepRuns,
      summary: JSON.stringify(stored),
    };
    const text = (words ?? runWords(summary)).join(' ');
    let n: number;
    if (row) {
      n = row.n;
      // Most commits of a run move its counts and summary only: the columns its indexes hold are left as they are.
      if (indexedUnchanged(row, columns)) this.sql.updateRunProgress.run(columns.next_seq, columns.rounds, columns.stored, columns.summary, n);
      else this.sql.updateRun.run({ ...columns, n });
      // The search index is rewritten only when the run's words changed (most rounds add none).
      if (kept?.words !== text) {
        this.sql.deleteWords.run(n);
        this.sql.insertWords.run(n, text);
      }
    } else {
      n = Number(this.sql.insertRun.run(columns).lastInsertRowid);
      this.runsAddedOrRemoved += 1;
      // Its events came back (an import of a deleted run): it is no longer deleted.
      this.sql.deleteTombstone.run(runId);
      this.sql.insertWords.run(n, text);
    }
    if (keep) this.foldedNow.set(runId, { row: { ...columns, n }, summary: stored, words: text });
    else this.runRows.delete(runId);
  }

  private markImported(runIds: readonly string[]): void {
    this.runRows.clear();
    for (const runId of runIds) {
      const row = this.sql.getRun.get(runId);
      if (row && row.imported === 0) this.sql.updateRun.run({ ...row, imported: 1 });
    }
  }

  /** A legacy journal's note of an open run whose events it had compacted away: a row, so it is closed as interrupted. */
  private ensureOpenRun(run: OpenRun): void {
    this.runRows.clear();
    const row = this.sql.getRun.get(run.run_id);
    if (row) {
      if (row.finished_at === null) this.sql.updateRun.run({ ...row, next_seq: Math.max(row.next_seq, run.next_seq), rounds: Math.max(row.rounds, run.rounds) });
      return;
    }
    const now = new Date(0).toISOString();
    const summary: RunRow = {
      run_id: run.run_id,
      workflow_id: '',
      spec_name: 'Unknown workflow',
      status: 'running',
      started_at: now,
      rounds: run.rounds,
      models: { student: '?', teacher: '?' },
      supervision_enabled: false,
      stored_events: 0,
    };
    this.runsAddedOrRemoved += 1;
    const n = Number(
      this.sql.insertRun.run({
        run_id: run.run_id,
        spec_id: null,
        name: summary.spec_name,
        status: summary.status,
        started_at: now,
        finished_at: null,
        next_seq: run.next_seq,
        rounds: run.rounds,
        stored: 0,
        imported: 0,
        retention_days: null,
        retention_runs: null,
        summary: JSON.stringify(summary),
      }).lastInsertRowid,
    );
    this.sql.insertWords.run(n, runWords(summary).join(' '));
  }

  private recordTombstones(runIds: readonly string[], at: number): void {
    for (const runId of runIds) {
      // Re-inserted: newest last, in the order deletedSince reports.
      this.sql.deleteTombstone.run(runId);
      this.sql.insertTombstone.run(runId, at);
    }
    if (at > this.floorPos) {
      this.floorPos = at;
      this.sql.setMeta.run(meta.floor, String(at));
    }
  }

  private setCompacted(through: number): void {
    this.compacted = through;
    this.sql.setMeta.run(meta.compacted, String(through));
    if (through > this.floorPos) {
      this.floorPos = through;
      this.sql.setMeta.run(meta.floor, String(through));
    }
  }

  /** Past maxTombstones, the oldest go and the compaction mark takes the highest head they were made at. */
  private compactTombstones(adding: number): void {
    const excess = this.tombstoneCount + adding - this.maxTombstones;
    if (excess <= 0) return;
    const oldest = this.sql.oldestTombstones.all(excess);
    const last = oldest.at(-1);
    if (!last) return;
    const through = Math.max(this.compacted, ...oldest.map((row) => row.at));
    this.db.transaction(() => {
      this.sql.dropTombstonesThrough.run(last.n);
      this.setCompacted(through);
    })();
  }

  /** Events in (from, to] another connection appended: told to subscribers as `foreign` slices, in order. */
  private notifyForeign(from: number, to: number): number {
    let after = from;
    let told = 0;
    while (after < to) {
      const rows = this.sql.readAfter.all(after, FOREIGN_BATCH).filter((row) => row.pos <= to);
      const last = rows.at(-1);
      if (!last) break;
      this.headPos = Math.max(this.headPos, last.pos);
      // Synced by the connection that wrote them; told after anything of this one's still untold.
      this.untold.push({ slice: this.withImported({ events: rows.map((row) => JSON.parse(row.body) as RunEvent), after, position: last.pos, foreign: true }), synced: true, gen: 0 });
      this.tell();
      after = last.pos;
      told += rows.length;
    }
    return told;
  }

  private notify(slice: JournalSlice): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(slice);
      } catch (error) {
        // The events are already durable; one failing listener must not starve the others.
        this.log(`event journal: a subscriber failed: ${errorReason(error)}`);
      }
    }
  }

  private requireOpen(): void {
    if (this.closed) throw new Error(`The history database ${this.path} is closed`);
  }
}

/** A run's row as the lists give it (history-queries.ts): its summary without the search words (those are in run_words). */
function storedRun(row: RunColumns): ListedRun {
  return { run: JSON.parse(row.summary) as RunRow, events: row.stored, imported: row.imported === 1 };
}

/** An error's code and message, for a person to act on. */
function errorReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.startsWith(code) ? `${code}: ${error.message}` : error.message;
}
