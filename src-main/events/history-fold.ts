import type { RunEvent } from '@shared/contracts/events';
import type { HistoryDb } from './history-db';

/**
 * What the host derives from its history lazily (issue 26): promotion figures, the Learning list.
 * Nothing is added to a round's write; when one of them is asked, the events appended since the last
 * fold (`meta.folded`, a position) are read, a chunk per transaction, and handed to every fold.
 */
export interface Fold {
  /** The event types it reads. */
  readonly types: readonly RunEvent['type'][];
  /** Takes a chunk of those events, in position order; inside the chunk's transaction. */
  fold(events: readonly RunEvent[]): void;
  /** Forgets deleted runs; inside the transaction that deletes them. */
  forget(runIds: readonly string[]): void;
  /**
   * Does up to `limit` pieces of what a read would otherwise do first (ranks a fold or a deletion left
   * stale: promotion-store.ts); true while some is left. Inside a transaction.
   */
  settle?(limit: number): boolean;
}

const FOLDED = 'folded';
/** Events read per fold transaction: the host answers other requests between them. */
const FOLD_CHUNK = 5_000;

export class HistoryFold {
  private readonly sql;
  private catching: Promise<void> | undefined;

  constructor(
    private readonly db: HistoryDb,
    private readonly folds: readonly Fold[],
  ) {
    const types = [...new Set(folds.flatMap((f) => f.types))].map((t) => `'${t}'`).join(', ');
    this.sql = {
      folded: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
      setFolded: db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      head: db.prepare<[], { pos: number | null }>('SELECT max(pos) AS pos FROM events'),
      toFold: db.prepare<[number, number, number], { pos: number; body: string }>(`SELECT pos, body FROM events WHERE pos > ? AND pos <= ? AND type IN (${types}) ORDER BY pos LIMIT ?`),
    };
  }

  /** The position folded through. */
  get foldedThrough(): number {
    return Number(this.sql.folded.get(FOLDED)?.value ?? 0);
  }

  /**
   * Folds every event appended since the last fold, a chunk per transaction, yielding between chunks
   * (a first fold of a long history takes a while; the host answers meanwhile). Concurrent callers share one.
   */
  catchUp(): Promise<void> {
    if (this.catching) return this.catching;
    const run = (async () => {
      while (this.foldChunk()) await new Promise((resolve) => setImmediate(resolve));
    })();
    // Cleared once settled (never inside the async body: a fold that ends at once would clear it before it is set).
    const shared = run.finally(() => {
      if (this.catching === shared) this.catching = undefined;
    });
    this.catching = shared;
    return shared;
  }

  /** Folds one chunk; true when more are left. Synchronous: one transaction. */
  foldChunk(limit = FOLD_CHUNK): boolean {
    return this.db.transaction(() => {
      const from = this.foldedThrough;
      const head = this.sql.head.get()?.pos ?? 0;
      if (head <= from) return false;
      const rows = this.sql.toFold.all(from, head, limit);
      const more = rows.length === limit;
      const through = more ? rows.at(-1)!.pos : head;
      if (rows.length > 0) {
        const events = rows.map((row) => JSON.parse(row.body) as RunEvent);
        for (const f of this.folds) {
          const wanted = new Set<string>(f.types);
          f.fold(events.filter((e) => wanted.has(e.type)));
        }
      }
      this.sql.setFolded.run(FOLDED, String(through));
      return more;
    }).immediate();
  }

  /** One piece (`limit`) of what the folds' next reads would otherwise do first, in one transaction; true while some is left. */
  settleChunk(limit: number): boolean {
    return this.db.transaction(() => this.folds.some((f) => f.settle?.(limit) === true)).immediate();
  }

  /** Deleted runs: every fold forgets them (call in the deleting transaction). */
  forget(runIds: readonly string[]): void {
    for (const f of this.folds) f.forget(runIds);
  }
}
