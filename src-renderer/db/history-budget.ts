import Dexie from 'dexie';
import { z } from 'zod';
import { plainSettings, type HeldRunRow, type StewardDb } from './db';

/**
 * What this page keeps of the host's history (issue 26). The host's database holds every event; the
 * page keeps every run's summary row (Runs, its filters and search are whole at once) and the events of
 * the runs that ran while it watched, were the newest when it listed the history, or were opened here,
 * up to a budget a person sets in Settings. Past it, the events of the runs used longest ago go (their
 * rows stay); opening such a run fetches its events again.
 */
export const BUDGET_LIMITS = { min: 1_000, max: 10_000_000 } as const;
export const HistoryBudget = z.object({ events: z.number().int().min(BUDGET_LIMITS.min).max(BUDGET_LIMITS.max) }).strict();
export type HistoryBudget = z.infer<typeof HistoryBudget>;
/** About 100 MB of IndexedDB at the size demo events have (about 1 KB stored with their indexes). */
export const DEFAULT_BUDGET: HistoryBudget = { events: 100_000 };

const KEY = 'history-budget';

/** A damaged or missing value reads as the default. */
export async function readBudget(db: StewardDb): Promise<HistoryBudget> {
  const parsed = HistoryBudget.safeParse((await plainSettings(db).get(KEY))?.value);
  return parsed.success ? parsed.data : DEFAULT_BUDGET;
}

export async function writeBudget(db: StewardDb, budget: HistoryBudget): Promise<void> {
  await plainSettings(db).put({ key: KEY, value: HistoryBudget.parse(budget) });
}

/** What the page keeps now: for Settings. */
export async function heldFacts(db: StewardDb): Promise<{ events: number; heldRuns: number; runs: number }> {
  const [events, heldRuns, runs] = await Promise.all([db.events.count(), db.held_runs.count(), db.runs.count()]);
  return { events, heldRuns, runs };
}

/**
 * After a fresh page listed every run's summary (host-session's catch-up): the newest runs whose events fit
 * in the budget are kept, so the events that follow are stored for them and only indexed for the rest.
 */
export async function holdNewestRuns(db: StewardDb, budget: HistoryBudget): Promise<number> {
  const held: HeldRunRow[] = [];
  let events = await db.events.count();
  await db.runs
    .orderBy('started_at')
    .reverse()
    .until(() => events >= budget.events)
    .each((run) => {
      const count = run.event_count ?? run.stored_events;
      if (events + count > budget.events) return;
      events += count;
      held.push({ run_id: run.run_id, used_at: run.started_at });
    });
  // A run held already keeps its own time (a later opening).
  const before = await db.held_runs.bulkGet(held.map((h) => h.run_id));
  await db.held_runs.bulkPut(held.filter((_, i) => before[i] === undefined));
  return held.length;
}

/** A person opened this run: it is the last to go. */
export async function markUsed(db: StewardDb, runId: string, at = new Date().toISOString()): Promise<void> {
  await db.held_runs.put({ run_id: runId, used_at: at });
}

/**
 * Drops the events of the runs used longest ago until the page keeps no more than the budget. What a run
 * weighs is what it will hold once the feed has brought all of it (its event count), so a budget lowered
 * while a fresh page still indexes holds at once. A run not ended, or open on this page (`inUse`), keeps its
 * events. One transaction per run: a long trim never holds the database. Returns the runs whose events went.
 */
export async function trimToBudget(db: StewardDb, budget: HistoryBudget, inUse: ReadonlySet<string> = new Set()): Promise<string[]> {
  const held = await db.held_runs.orderBy('used_at').toArray();
  const rows = await db.runs.bulkGet(held.map((h) => h.run_id));
  const weight = rows.map((run) => run?.event_count ?? run?.stored_events ?? 0);
  let events = Math.max(await db.events.count(), weight.reduce((a, b) => a + b, 0));
  const dropped: string[] = [];
  for (const [i, { run_id }] of held.entries()) {
    if (events <= budget.events) break;
    const run = rows[i];
    if (!run) {
      await db.held_runs.delete(run_id); // its run is gone: nothing to keep
      continue;
    }
    if (inUse.has(run_id) || run.status === 'running' || run.status === 'waiting') continue;
    const removed = await db.transaction('rw', [db.events, db.held_runs], async () => {
      await db.held_runs.delete(run_id);
      return db.events.where('[run_id+seq]').between([run_id, Dexie.minKey], [run_id, Dexie.maxKey]).delete();
    });
    events -= Math.max(removed, weight[i] ?? 0);
    dropped.push(run_id);
  }
  return dropped;
}

/** Runs open on this page now (RunScreen and the panels that read a run's events): their events stay. */
const open = new Map<string, number>();
export function holdOpen(runId: string): () => void {
  open.set(runId, (open.get(runId) ?? 0) + 1);
  return () => {
    const n = (open.get(runId) ?? 1) - 1;
    if (n <= 0) open.delete(runId);
    else open.set(runId, n);
  };
}
export const openRuns = (): ReadonlySet<string> => new Set(open.keys());
