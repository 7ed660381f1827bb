import { useCallback, useDeferredValue, useMemo, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { useHost } from '../app/HostProvider';
import type { IndexingState } from '../host/host-session';
import { routeHref } from '../app/routing';
import { count, plural } from '../view/format';
import { RunFilters } from './runs/RunFilters';
import { RunsTable, type RunSelection } from './runs/RunsTable';
import { RunsActions } from './runs/RunsActions';
import { NO_FILTER, isFiltered, type RunFilter } from './runs/run-filter';
import { RUN_PAGE } from './runs/run-query';
import { useRunsFound } from './runs/use-runs-found';
import { useRunsTotal } from './runs/use-runs-total';
import { useFilterWorkflows } from './runs/filter-workflows';
import { childrenUnderParents } from '@shared/history/children-under-parents';

/** While the page catches up with a long history: what it is doing, in words, with a progress bar. */
function IndexingNotice({ state }: { state: IndexingState }) {
  const [done, total, text] =
    state.stage === 'runs'
      ? [state.listed, state.total, `Listing this data folder's runs: ${count(state.listed)} of ${plural(state.total, 'run')}. The list fills in as they arrive.`]
      : [state.stored, state.head, `Every run is listed. Indexing their traces for this browser: ${count(state.stored)} of ${plural(state.head, 'event')}. A run opened meanwhile loads from the host's history.`];
  return (
    <div className="notice runs-indexing" role="status" aria-live="polite" data-testid="runs-indexing">
      <p>{text}</p>
      <progress max={Math.max(1, total)} value={Math.min(done, total)} aria-label="Indexing progress" />
    </div>
  );
}

export function RunsScreen() {
  const { db, indexing } = useHost();
  // The filter lives here, not in the URL: a reload shows every run again.
  const [view, setView] = useState<{ filter: RunFilter; limit: number }>({ filter: NO_FILTER, limit: RUN_PAGE });
  // Typing stays responsive: the query follows the latest filter when React has time.
  const { filter, limit } = useDeferredValue(view);
  // Not a live count while the page lists or indexes a long history: each count walks every row.
  const total = useRunsTotal(db, indexing);
  // A text search also asks the host's history for the runs this page lists without their traces.
  const { runs, searching, problem: searchProblem } = useRunsFound(filter, limit);
  // A child run under the run that started it (issue 29), where both are loaded.
  const nested = useMemo(() => (runs ? childrenUnderParents(runs) : undefined), [runs]);
  const workflows = useFilterWorkflows();
  const loaded = runs?.length ?? 0;
  const more = useCallback(() => setView((v) => (loaded >= v.limit ? { ...v, limit: v.limit + RUN_PAGE } : v)), [loaded]);
  const setFilter = (f: RunFilter) => setView({ filter: f, limit: RUN_PAGE });
  // Checked runs, kept across filters and scrolling; a run that is gone (deleted anywhere) drops out.
  const [checked, setChecked] = useState<ReadonlySet<string>>(new Set());
  // What is gone, not what is present: a box just checked shows checked at once (a controlled checkbox
  // would otherwise flip back until the query answered), and drops out only once its run is known gone.
  const gone = useLiveQuery(async () => {
    const ids = [...checked];
    const rows = ids.length === 0 ? [] : await db.runs.bulkGet(ids);
    return new Set(ids.filter((_, i) => rows[i] === undefined));
  }, [db, checked]);
  const selected = useMemo(() => [...checked].filter((id) => !gone?.has(id)), [checked, gone]);
  const selection: RunSelection = useMemo(
    () => ({
      selected: new Set(selected),
      toggle: (runId) =>
        setChecked((prev) => {
          const next = new Set(prev);
          if (!next.delete(runId)) next.add(runId);
          return next;
        }),
      toggleAll: () =>
        setChecked((prev) => {
          const shown = runs ?? [];
          const all = shown.length > 0 && shown.every((r) => prev.has(r.run_id));
          const next = new Set(prev);
          for (const r of shown) {
            if (all) next.delete(r.run_id);
            else next.add(r.run_id);
          }
          return next;
        }),
    }),
    [selected, runs],
  );

  return (
    <div className="page">
      <header className="page__head">
        <div>
          <h1 className="page__title">Runs</h1>
          <p className="page__subtitle" data-testid="runs-subtitle">Every run’s trace is kept in the host’s history database, in its data folder, whether it ran here or from the command line: what each model proposed, and what was actually done. This page keeps an index of it for browsing and search.</p>
        </div>
      </header>
      <RunsActions selected={selected} onDeleted={() => setChecked(new Set())} />
      {indexing && <IndexingNotice state={indexing} />}
      {total === undefined ? (
        <p className="muted">Loading…</p>
      ) : total === 0 ? (
        <div className="empty" data-testid="runs-empty">
          <h2>No runs yet</h2>
          <p>
            Start one from <a href={routeHref({ name: 'workflows' })}>Workflows</a>, or import a trace (a JSONL export, or a file from <code>steward run --trace</code>).
          </p>
        </div>
      ) : (
        <>
          <RunFilters filter={view.filter} onChange={setFilter} workflows={workflows} />
          {searchProblem !== undefined && (
            <p className="notice" role="status" data-testid="runs-search-problem">
              {searchProblem}
            </p>
          )}
          {runs === undefined || (runs.length === 0 && searching) ? (
            <p className="muted" data-testid="runs-loading">
              {searching ? 'Searching the history…' : 'Loading…'}
            </p>
          ) : runs.length === 0 ? (
            <div className="empty" data-testid="runs-no-match">
              <h2>No runs match</h2>
              <p>
                <button type="button" className="link-button" onClick={() => setFilter({ ...NO_FILTER, sort: view.filter.sort })}>
                  Clear filters
                </button>{' '}
                to see all {plural(total, 'run')}.
              </p>
            </div>
          ) : (
            <>
              <p className="muted" data-testid="runs-count">
                {isFiltered(filter) ? `${count(runs.length)}${runs.length >= limit ? '+' : ''} matching of ${plural(total, 'run')}` : plural(total, 'run')}
                {searching && <span data-testid="runs-searching"> · searching the rest of the history…</span>}
              </p>
              <RunsTable runs={nested ?? runs} onNearEnd={more} selection={selection} />
            </>
          )}
        </>
      )}
    </div>
  );
}
