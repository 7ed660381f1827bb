import { useCallback, useEffect, useState } from 'react';
import type { RunEvent } from '@shared/contracts/events';
import { useHost } from '../../app/HostProvider';
import { holdOpen, markUsed } from '../../db/history-budget';
import { inForeground } from '../../host/foreground';
import { fetchRunEvents, FIRST_PAGE_EVENTS, holdsWhole, type FetchRunEventsPage } from '../../db/run-events-from-host';

/** Where a run's events are for the screen that shows them (issue 26: the page keeps recent and opened runs only). */
export type HeldRunState =
  | { kind: 'checking' }
  | { kind: 'held' }
  | { kind: 'fetching'; arrived: number }
  | { kind: 'offline' }
  | { kind: 'unknown' }
  | { kind: 'failed'; message: string };

/**
 * Keeps a run's events on this page while a screen shows them: held, they stay (the budget never drops an
 * open run's); not held, they are fetched from the host's history, page by page, the screen's live query
 * filling in as they come. `retry` after a failure or once the host is back.
 */
export function useHeldRun(runId: string | undefined): { state: HeldRunState; retry(): void; arrived?: RunEvent[] } {
  const { db, client, connection } = useHost();
  const [state, setState] = useState<HeldRunState>({ kind: 'checking' });
  // What came from the host so far, in order: shown while it is stored (the page's store may be busy indexing).
  const [arrived, setArrived] = useState<{ runId: string; events: RunEvent[] }>();
  const [attempt, setAttempt] = useState(0);
  useEffect(() => (runId ? holdOpen(runId) : undefined), [runId]);
  useEffect(() => {
    if (!runId) return;
    let current = true;
    const fetchPage: FetchRunEventsPage = (id, after, limit) => client.request('runs.events', { run_id: id, after_seq: after, ...(limit !== undefined ? { limit } : {}) });
    const run = async () => {
      // Asked at once, beside the check of what the page holds (that check may wait behind the page's indexing).
      // The page's background indexing waits until it is shown (host/foreground.ts).
      const first = connection === 'open' ? inForeground(fetchPage(runId, -1, FIRST_PAGE_EVENTS)) : undefined;
      // Shown as soon as it comes: the check below can wait seconds behind a long history's indexing (10M events).
      first?.then(
        (page) => {
          if (current && page.known) setArrived((shown) => (shown?.runId === runId ? shown : { runId, events: page.events.filter((e) => e.run_id === runId) }));
        },
        () => undefined,
      );
      if (await holdsWhole(db, runId)) {
        await markUsed(db, runId);
        if (current) setState({ kind: 'held' });
        return;
      }
      if (connection !== 'open') {
        if (current) setState({ kind: 'offline' });
        return;
      }
      if (current) setState({ kind: 'fetching', arrived: 0 });
      let events: RunEvent[] = [];
      const outcome = await fetchRunEvents(
        db,
        fetchPage,
        runId,
        (count, page) => {
          if (!current) return;
          events = events.concat(page);
          setArrived({ runId, events });
          setState({ kind: 'fetching', arrived: count });
        },
        () => current,
        first,
      );
      if (!current) return;
      setState(outcome.kind === 'unknown' ? { kind: 'unknown' } : { kind: 'held' });
    };
    run().catch((err: unknown) => current && setState({ kind: 'failed', message: err instanceof Error ? err.message : String(err) }));
    return () => {
      current = false;
    };
  }, [db, client, connection, runId, attempt]);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { state, retry, ...(arrived !== undefined && arrived.runId === runId ? { arrived: arrived.events } : {}) };
}
