import { useEffect, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { StewardDb } from '../../db/db';
import type { IndexingState } from '../../host/host-session';

/** How often the count is taken again while the page stores a long history's events. */
export const INDEXING_COUNT_MS = 5_000;

/**
 * How many runs the Runs screen says there are (issue 26). Counting IndexedDB's runs walks every row
 * (about 2.75 µs a row: 165 ms at 60,000 in bench/idb-listing.ts, so some 470 ms at 172,000), and a
 * live count counts again after every write: while the page listed a 10M-event history (a write
 * every few hundred ms) those counts held up the listing's own writes. So: while the page lists, the
 * host's count is the total (every run its history holds, listed here yet or not); while it stores
 * the events, the count is taken every INDEXING_COUNT_MS; otherwise it is live. The last count
 * stands while the next is taken.
 */
export function useRunsTotal(db: StewardDb, indexing: IndexingState | undefined): number | undefined {
  const stage = indexing?.stage;
  // A query that reads nothing observes nothing: the live count is not taken again while the page indexes.
  const live = useLiveQuery((): Promise<number | undefined> | undefined => (stage === undefined ? db.runs.count() : undefined), [db, stage]);
  // The last count, kept as React keeps a value derived from the previous render's; the polled counts land here too.
  const [last, setLast] = useState<number>();
  useEffect(() => {
    if (stage !== 'events') return undefined;
    let wanted = true;
    const count = () => {
      db.runs.count().then(
        (n) => {
          if (wanted) setLast(n);
        },
        // A count that failed is taken again at the next tick; the last one stands meanwhile.
        () => undefined,
      );
    };
    count();
    const timer = setInterval(count, INDEXING_COUNT_MS);
    return () => {
      wanted = false;
      clearInterval(timer);
    };
  }, [db, stage]);
  const now = indexing?.stage === 'runs' ? indexing.total : stage === undefined ? live : undefined;
  if (now !== undefined && now !== last) setLast(now);
  return now ?? last;
}
