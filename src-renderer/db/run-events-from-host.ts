import type { RunEvent } from '@shared/contracts/events';
import type { StewardDb } from './db';

/** One answer of the host's runs.events. */
export interface RunEventsPage {
  events: RunEvent[];
  next?: number | undefined;
  known: boolean;
}
/** `limit`: at most this many events (the host's own page size when absent). */
export type FetchRunEventsPage = (runId: string, afterSeq: number, limit?: number) => Promise<RunEventsPage>;

/** The first page is small, so a run opened shows its start at once; the rest come in the host's full pages. */
export const FIRST_PAGE_EVENTS = 200;

export type FetchOutcome = { kind: 'held'; events: number } | { kind: 'unknown' } | { kind: 'stopped' };

/**
 * Brings one run's events from the host's history into this page (a person opened a run whose events the
 * page does not keep, issue 26): page by page, each handed to `progress` as it arrives (the screen shows it
 * at once) and stored with the run marked used now. Stores run behind the requests, not between them: a
 * page still indexing a long history keeps its database busy, and the run's pages need not queue behind it.
 * The events are only stored: the run's row and what is distilled from its events were made when the page
 * indexed them (or will be, when the feed reaches them). `first`: the first page, already asked for.
 */
export async function fetchRunEvents(
  db: StewardDb,
  fetchPage: FetchRunEventsPage,
  runId: string,
  /** Each page as it arrives (before it is stored): how many so far, and the page's events. */
  progress: (arrived: number, events: readonly RunEvent[]) => void = () => undefined,
  stillWanted: () => boolean = () => true,
  first?: Promise<RunEventsPage>,
): Promise<FetchOutcome> {
  let after = -1;
  let arrived = 0;
  let stores: Promise<unknown> = Promise.resolve();
  const store = (events: RunEvent[]) =>
    db.transaction('rw', [db.events, db.held_runs], async () => {
      await db.events.bulkPut(events);
      await db.held_runs.put({ run_id: runId, used_at: new Date().toISOString() });
    });
  for (;;) {
    const page = await (after === -1 ? (first ?? fetchPage(runId, after, FIRST_PAGE_EVENTS)) : fetchPage(runId, after));
    if (!stillWanted()) return { kind: 'stopped' };
    if (!page.known) return { kind: 'unknown' };
    // A page of another run (a host that is wrong) is never stored under this one.
    const events = page.events.filter((e) => e.run_id === runId);
    arrived += events.length;
    progress(arrived, events);
    stores = stores.then(() => store(events));
    if (page.next === undefined || page.events.length === 0) break;
    after = page.next;
  }
  await stores;
  return { kind: 'held', events: arrived };
}

/** Whether this page keeps the run's events whole: held, and as many as the run has (or it has not ended). */
export async function holdsWhole(db: StewardDb, runId: string): Promise<boolean> {
  const [held, run, count] = await Promise.all([db.held_runs.get(runId), db.runs.get(runId), db.events.where('run_id').equals(runId).count()]);
  if (!held) return false;
  if (!run || run.event_count === undefined) return true;
  return count >= run.event_count;
}

/** One run's events read from the host's history without storing them (an export of runs this page does not keep). */
export async function hostRunEvents(fetchPage: FetchRunEventsPage, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  let after = -1;
  for (;;) {
    const page = await fetchPage(runId, after);
    for (const e of page.events) if (e.run_id === runId) events.push(e);
    if (!page.known || page.next === undefined || page.events.length === 0) return events;
    after = page.next;
  }
}
