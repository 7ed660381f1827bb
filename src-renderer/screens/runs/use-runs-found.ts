import { useEffect, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { RunRow } from '@shared/history/run-summary';
import { useHost } from '../../app/HostProvider';
import type { RunFilter } from './run-filter';
import { queryRuns } from './run-query';
import { hostSearch, mergeFound } from './host-search';

export interface RunsFound {
  /** The list's rows; undefined while the page's own query first runs. */
  runs: RunRow[] | undefined;
  /** A text search the host's history has not answered yet: more rows may follow. */
  searching: boolean;
  /** Why this list covers only the runs this browser holds (the host could not be asked), in words. */
  problem?: string;
}

interface HostAnswer {
  key: string;
  rows?: RunRow[];
  problem?: string;
}

/**
 * The Runs screen's rows for a filter (issue 26): the page's own IndexedDB, live; and for a text
 * search, the host's history database too, which finds the runs this page lists but does not hold
 * the events (and so the search words) of. One row per run, the page's where it has one.
 */
export function useRunsFound(filter: RunFilter, limit: number): RunsFound {
  const { db, client, connection } = useHost();
  const text = filter.text.trim();
  const open = connection === 'open';
  const key = JSON.stringify([filter, limit]);
  const [answer, setAnswer] = useState<HostAnswer>();
  useEffect(() => {
    if (text === '' || !open) return undefined;
    let wanted = true;
    hostSearch((query) => client.request('runs.list', query), filter, limit).then(
      (rows) => {
        if (wanted) setAnswer({ key, rows });
      },
      (err: unknown) => {
        if (wanted) setAnswer({ key, problem: err instanceof Error ? err.message : String(err) });
      },
    );
    return () => {
      wanted = false;
    };
    // `key` stands for the filter and the limit.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, key, open]);
  const current = answer?.key === key ? answer : undefined;
  const runs = useLiveQuery(async () => {
    const local = await queryRuns(db, filter, limit);
    if (!current?.rows || current.rows.length === 0) return local;
    const held = await db.runs.bulkGet(current.rows.map((row) => row.run_id));
    return mergeFound(local, current.rows, held, filter, limit);
  }, [db, filter, limit, current]);
  if (text === '') return { runs, searching: false };
  if (!open) return { runs, searching: false, problem: 'The host is not connected, so this search covers only the runs this browser holds the traces of.' };
  if (current?.problem !== undefined) return { runs, searching: false, problem: `The host's history could not be searched (${current.problem}), so this list covers only the runs this browser holds the traces of.` };
  return { runs, searching: current === undefined };
}
