import { Fragment, useEffect, type ReactNode } from 'react';
import { navigate, routeHref, type Route } from '../../app/routing';
import type { RunRow } from '../../db/db';
import { workflowRunSummary } from '../run/run-nodes';
import { StatusBadge } from '../../components/Chip';
import { formatDateTime, formatDuration } from '../../view/format';
import { OVERSCAN, SpacerRow, useWindowRows } from './virtual-rows';
import { runTags } from './run-tags';
import { SupervisionCostCells, SupervisionCostHeaders } from '../costs/SupervisionCostCells';
import { usePriceList } from '../costs/use-price-list';
import { roundsWords } from '@shared/history/rounds-words';
import { childRunsCount } from '@shared/history/run-summary';
import { runCost } from '@shared/accounting/run-cost';
import { tokenCountText, usdText } from '@shared/accounting/cost-words';
import type { PriceList } from '@shared/accounting/price-list';
import './runs.css';

/** A workflow run opens on its nodes, an agent run on its rounds. */
function runRoute(run: RunRow): Route {
  return { name: 'run', runId: run.run_id, tab: run.workflow ? 'nodes' : 'rounds' };
}

const COLUMNS = 10;

/**
 * The columns a narrow list folds into the row, as classes (runs.css): on a narrow page their cells
 * hide and the same facts show as a line under the run's name, so nothing is lost and the table never
 * scrolls sideways. `first` folds below 1200 px of table, `later` below 700 px.
 */
const FOLD = {
  started: 'runs-col runs-col--later',
  events: 'runs-col runs-col--first',
  models: 'runs-col runs-col--first',
  took: 'runs-col runs-col--first',
  cost: 'runs-col runs-col--later',
  tokens: 'runs-col runs-col--first',
} as const;
const COST_CLASSES = { cost: FOLD.cost, tokens: FOLD.tokens };

/** Which runs are checked; the header box checks or clears every loaded row. */
export interface RunSelection {
  selected: ReadonlySet<string>;
  toggle(runId: string): void;
  toggleAll(): void;
}

/**
 * The runs as a table that renders only the rows near the viewport (the page scrolls, not the table); spacer rows
 * above and below keep the scrollbar true. `onNearEnd` asks for the next page when the last loaded rows come into view.
 */
export function RunsTable({ runs, onNearEnd, selection }: { runs: readonly RunRow[]; onNearEnd: () => void; selection: RunSelection }) {
  const { bodyRef, items, top, bottom, measure } = useWindowRows(runs.length, 45);
  // Supervision cost columns (issue 31), priced with the app's price list.
  const { prices } = usePriceList();
  const last = items.at(-1)?.index ?? -1;
  useEffect(() => {
    if (last >= runs.length - OVERSCAN) onNearEnd();
  }, [last, runs.length, onNearEnd]);

  return (
    <div className="card table-wrap runs-table-wrap">
      <table className="table runs-table" data-testid="runs-list" aria-rowcount={runs.length + 1}>
        <thead>
          <tr>
            <th scope="col" className="runs-check">
              <input
                type="checkbox"
                aria-label={`Select all ${runs.length} runs listed`}
                checked={runs.length > 0 && runs.every((r) => selection.selected.has(r.run_id))}
                onChange={selection.toggleAll}
                data-testid="select-all-runs"
              />
            </th>
            <th scope="col" className="runs-status">
              Status
            </th>
            <th scope="col">Workflow</th>
            <th scope="col" className={FOLD.started}>
              Started
            </th>
            <th scope="col" className="num">
              Rounds
            </th>
            <th scope="col" className={`num ${FOLD.events}`}>
              Events
            </th>
            <th scope="col" className={FOLD.models}>
              Models
            </th>
            <th scope="col" className={`num ${FOLD.took}`}>
              Took
            </th>
            <SupervisionCostHeaders classes={COST_CLASSES} />
          </tr>
        </thead>
        <tbody ref={bodyRef}>
          <SpacerRow height={top} columns={COLUMNS} />
          {items.map((item) => {
            const run = runs[item.index]!;
            return (
              <tr
                key={run.run_id}
                ref={measure}
                data-index={item.index}
                aria-rowindex={item.index + 2}
                className={run.parent ? 'table__row runs-row--child' : 'table__row'}
                data-testid="run-row"
                data-run-id={run.run_id}
                {...(run.parent ? { 'data-parent-run-id': run.parent.run_id } : {})}
                data-kind={run.workflow ? 'workflow' : 'agent'}
                onClick={() => navigate(runRoute(run))}
              >
                <td className="runs-check" onClick={(e) => e.stopPropagation()}>
                  <input
                    type="checkbox"
                    aria-label={`Select the run of ${run.spec_name} started ${formatDateTime(run.started_at)}`}
                    checked={selection.selected.has(run.run_id)}
                    onChange={() => selection.toggle(run.run_id)}
                    data-testid="select-run"
                  />
                </td>
                <RunCells run={run} prices={prices} />
                <SupervisionCostCells run={run} prices={prices} classes={COST_CLASSES} />
              </tr>
            );
          })}
          <SpacerRow height={bottom} columns={COLUMNS} />
        </tbody>
      </table>
    </div>
  );
}

const eventsText = (run: RunRow) => (run.event_count !== undefined && run.event_count !== run.stored_events ? `${run.stored_events}/${run.event_count}` : String(run.stored_events));

const eventsWords = (run: RunRow) =>
  run.event_count !== undefined && run.event_count !== run.stored_events ? `${run.stored_events} of ${run.event_count} events stored` : `${run.stored_events} ${run.stored_events === 1 ? 'event' : 'events'}`;

function RunCells({ run, prices }: { run: RunRow; prices: PriceList }) {
  return (
    <>
      <td className="runs-status">
        <StatusBadge status={run.status} supervised={run.workflow?.supervised} partial={run.partial} />
      </td>
      <td>
        <a href={routeHref(runRoute(run))} onClick={(e) => e.stopPropagation()}>
          {run.spec_name}
        </a>
        {run.workflow ? (
          <span className="muted" data-testid="run-row-nodes">
            {' '}
            · {workflowRunSummary(run.workflow, run.status)}
            {run.imported && ' · imported'}
          </span>
        ) : (
          runTags(run).map((tag) => (
            <span key={tag} className="muted">
              {' '}
              · {tag}
            </span>
          ))
        )}
        <ChildRunsNote run={run} />
        {run.task && <div className="muted">{run.task.length > 120 ? `${run.task.slice(0, 119)}…` : run.task}</div>}
        <ParentRunNote run={run} />
        <FoldedFacts run={run} prices={prices} />
      </td>
      <td className={`nowrap ${FOLD.started}`}>{formatDateTime(run.started_at)}</td>
      <RoundsCell run={run} />
      <td className={`num ${FOLD.events}`}>{eventsText(run)}</td>
      <td className={`runs-models ${FOLD.models}`}>
        <Models run={run} />
      </td>
      <td className={`num nowrap ${FOLD.took}`}>{formatDuration(run.started_at, run.finished_at) ?? '—'}</td>
    </>
  );
}

function Models({ run }: { run: RunRow }) {
  return (
    <>
      <code className="muted">{run.models.student}</code>
      <span className="muted"> / </span>
      <code className="muted">{run.models.teacher}</code>
    </>
  );
}

/**
 * The folded columns' facts, in words, under the run's name: each shows only while its column is
 * hidden (runs.css), so a narrow list still says when the run started, how long it took, its events,
 * models and supervision cost.
 */
function FoldedFacts({ run, prices }: { run: RunRow; prices: PriceList }) {
  const took = formatDuration(run.started_at, run.finished_at);
  const supervision = run.usage ? runCost(run.usage, prices).supervision : undefined;
  const spent = supervision && supervision.calls > 0 ? supervision : undefined;
  const facts: Array<{ key: string; folds: 'first' | 'later'; words: ReactNode } | false | undefined> = [
    { key: 'started', folds: 'later', words: `Started ${formatDateTime(run.started_at)}` },
    took !== undefined && { key: 'took', folds: 'first', words: `took ${took}` },
    { key: 'events', folds: 'first', words: eventsWords(run) },
    { key: 'models', folds: 'first', words: <>models <Models run={run} /></> },
    spent && { key: 'cost', folds: 'later', words: `supervision cost ${usdText(spent)}` },
    spent && { key: 'tokens', folds: 'first', words: `supervision tokens ${tokenCountText(spent)}` },
  ];
  return (
    <div className="runs-fold muted" data-testid="run-row-folded">
      {facts.map(
        (f) =>
          f && (
            // A space after each: the facts read apart when copied or read aloud, not only on screen.
            <Fragment key={f.key}>
              <span className={`runs-fact--${f.folds}`}>{f.words}</span>{' '}
            </Fragment>
          ),
      )}
    </div>
  );
}

/** The rounds the run view's header and tab count (a round begun included), and what became of one that did not complete. */
function RoundsCell({ run }: { run: RunRow }) {
  const { count, note } = roundsWords(run);
  return (
    <td className="num" data-testid="run-row-rounds">
      {count}
      {note && <div className="muted runs-rounds-note">{note}</div>}
    </td>
  );
}

/** A parent run's row says how many child runs it ran (issue 29): ` · 2 child runs`. */
function ChildRunsNote({ run }: { run: RunRow }) {
  const { count, more } = childRunsCount(run);
  if (count === 0) return null;
  return (
    <span className="muted" data-testid="run-row-children">
      {' '}
      · {count}
      {more ? '+' : ''} child {count === 1 && !more ? 'run' : 'runs'}
    </span>
  );
}

/** A child run's row says whose part it is, with a link to the parent run at the node that ran it. */
function ParentRunNote({ run }: { run: RunRow }) {
  const { parent } = run;
  if (!parent) return null;
  return (
    <div className="muted runs-parent" data-testid="run-row-parent">
      ↳ Part of run{' '}
      <a href={routeHref({ name: 'run', runId: parent.run_id, tab: 'nodes', node: parent.invocation_id })} onClick={(e) => e.stopPropagation()} data-testid="run-row-parent-link">
        {parent.run_id.length > 13 ? `${parent.run_id.slice(0, 8)}…` : parent.run_id}
      </a>{' '}
      of {parent.workflow_id}, node {parent.invocation_id}
    </div>
  );
}
