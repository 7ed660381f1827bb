import type { RunEvent } from '@shared/contracts/events';
import type { HeldRunRow, RunRow, StewardDb } from './db';
import { summarize } from '@shared/history/run-summary';
export { outputsSummary, PER_NODE, summarize } from '@shared/history/run-summary';

export interface IngestOptions {
  /**
   * The caller knows none of these events is stored yet (a journal frame past this database's
   * cursor): they are not read back first. Without it every id is checked (a replay stores nothing twice).
   */
  fresh?: boolean;
  /** Runs among the events that came from an imported trace (the host's frame says so): their rows are marked. */
  imported?: ReadonlySet<string> | undefined;
}

export interface IngestResult {
  /** Every id in the batch: all of them are durably stored once this resolves, so ack them all. */
  ids: string[];
  /** Events not stored before this batch. */
  fresh: number;
}

/**
 * Stores pushed events and updates the run summaries in ONE transaction. Event ids are the key,
 * so a replay (the host re-pushes whatever was not acked) stores nothing twice, and the summary
 * update is idempotent. Learning examples are distilled in the same transaction (keyed by event
 * id, so idempotent too). Resolves after commit; only then may the caller acknowledge the ids.
 */
export async function ingestEvents(db: StewardDb, events: readonly RunEvent[], options: IngestOptions = {}): Promise<IngestResult> {
  const unique = [...new Map(events.map((e) => [e.id, e])).values()];
  if (unique.length === 0) return { ids: [], fresh: 0 };
  const ids = unique.map((e) => e.id);

  return db.transaction('rw', [db.events, db.runs, db.held_runs], async () => {
    const before = options.fresh ? [] : await db.events.bulkGet(ids);
    const isFresh = new Set(options.fresh ? ids : ids.filter((_, i) => before[i] === undefined));

    const byRun = new Map<string, RunEvent[]>();
    for (const e of unique) {
      const runBatch = byRun.get(e.run_id);
      if (runBatch) runBatch.push(e);
      else byRun.set(e.run_id, [e]);
    }

    const runIds = [...byRun.keys()];
    const [rows, held] = await Promise.all([db.runs.bulkGet(runIds), db.held_runs.bulkGet(runIds)]);
    // The writes are issued as they are made and awaited together at the end: IndexedDB carries them out
    // in the order they were issued, while this page derives the next (run rows) instead of waiting for each
    // in turn (bench/trace-store's backfill). Learning examples and promotion figures are the host's (v9).
    const writes: Promise<unknown>[] = [];
    // Every event updates its run's row; only the events of runs this page keeps are stored.
    const kept = keptRuns(runIds, rows, held, byRun);
    if (kept.newlyHeld.length > 0) writes.push(db.held_runs.bulkPut(kept.newlyHeld));
    writes.push(db.events.bulkPut(kept.all ? unique : unique.filter((e) => kept.runs.has(e.run_id))));
    const updated: RunRow[] = [];
    runIds.forEach((runId, i) => {
      const runBatch = (byRun.get(runId) ?? []).sort((a, b) => a.seq - b.seq);
      const freshCount = runBatch.filter((e) => isFresh.has(e.id)).length;
      const next = summarize(rows[i], runBatch, freshCount);
      // Not in the events: the host's word, kept with the row from then on (summarize keeps what a row has).
      if (next) updated.push(options.imported?.has(runId) && next.imported !== true ? { ...next, imported: true } : next);
    });
    if (updated.length > 0) writes.push(db.runs.bulkPut(updated));

    await Promise.all(writes);
    return { ids, fresh: isFresh.size };
  });
}

/**
 * Whose events this page keeps (issue 26): a run it holds already, a run it has no row of (it runs now, or
 * the page had not listed it: either way it is new here), and a run not yet ended. A run listed from the
 * host's summaries and ended is indexed (its row, its learning examples, its promotion figures) and its
 * events stay on the host until a person opens it.
 */
function keptRuns(runIds: readonly string[], rows: readonly (RunRow | undefined)[], held: readonly (HeldRunRow | undefined)[], byRun: ReadonlyMap<string, readonly RunEvent[]>) {
  const runs = new Set<string>();
  const newlyHeld: HeldRunRow[] = [];
  runIds.forEach((runId, i) => {
    if (held[i]) return runs.add(runId);
    const row = rows[i];
    if (row !== undefined && row.status !== 'running' && row.status !== 'waiting') return;
    runs.add(runId);
    newlyHeld.push({ run_id: runId, used_at: row?.started_at ?? byRun.get(runId)?.[0]?.ts ?? new Date().toISOString() });
  });
  return { runs, newlyHeld, all: runs.size === runIds.length };
}
