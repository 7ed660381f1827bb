import { routeHref } from '../../app/routing';
import { partialCountsText, partialWhereText, type PartialFailure } from '@shared/workflow/partial-failure';

/**
 * A run that completed with failures (issue 28), in its header: how many items failed and where,
 * in words; each failed item's reason one click away (its raw code inside the disclosure), with a
 * link to its node.
 */
export function PartialOutcome({ runId, partial }: { runId: string; partial: PartialFailure }) {
  const counts = partialCountsText(partial);
  const listed = partial.failed.length;
  const total = Math.max(listed, partial.items_failed + partial.nodes_failed);
  return (
    <div className="banner-inline banner-inline--escalated run-partial" role="note" data-testid="run-partial">
      <p className="run-partial__line">
        <strong>
          {counts[0]?.toUpperCase()}
          {counts.slice(1)}:
        </strong>{' '}
        {partialWhereText(partial)}. The outputs are without what {listed === 1 ? 'it' : 'they'} would have given; the run is not a success.
      </p>
      <details className="run-partial__why" data-testid="run-partial-details">
        <summary>Why {listed === 1 ? 'it' : 'they'} failed</summary>
        <ul className="plain-list run-partial__list">
          {partial.failed.map((f) => (
            <li key={f.invocation_id} data-testid="run-partial-item" data-invocation={f.invocation_id}>
              <a href={routeHref({ name: 'run', runId, tab: 'nodes', node: f.node })}>{f.where}</a>: {f.failure.message} <code className="muted">{f.failure.code}</code>
            </li>
          ))}
        </ul>
        {total > listed && <p className="muted">…and {total - listed} more (the Nodes tab lists every one).</p>}
      </details>
    </div>
  );
}
