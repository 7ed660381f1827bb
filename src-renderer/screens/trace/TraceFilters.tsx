import { useMemo } from 'react';
import type { RunEventType } from '@shared/contracts/events';
import { EVENT_LAYER_LABELS, type EventLayer, type TraceNode, type TraceTree } from './trace-tree';
import type { TraceFilter } from './trace-rows';

/**
 * The trace's filters: a checkbox chip per layer and per event type present in the run (none checked: all shown),
 * with their counts; and collapse / expand all.
 */
export function TraceFilters({
  tree,
  filter,
  onFilter,
  shown,
  total,
  filtered,
  onCollapseAll,
  onExpandAll,
}: {
  tree: TraceTree;
  filter: TraceFilter;
  onFilter: (f: TraceFilter) => void;
  shown: number;
  total: number;
  filtered: boolean;
  onCollapseAll: () => void;
  onExpandAll: () => void;
}) {
  const counts = useMemo(() => countLeaves(tree), [tree]);
  const flip = <T,>(set: ReadonlySet<T>, value: T): ReadonlySet<T> => {
    const next = new Set(set);
    if (!next.delete(value)) next.add(value);
    return next;
  };
  return (
    <div className="trace-filters" role="group" aria-label="Filter the trace" data-testid="trace-filters">
      <fieldset className="trace-filters__set">
        <legend className="field__label">Layer</legend>
        {tree.layers.map((layer) => (
          <label key={layer} className={`chip trace-chip ${filter.layers.has(layer) ? 'chip--accent' : ''}`}>
            <input type="checkbox" checked={filter.layers.has(layer)} onChange={() => onFilter({ ...filter, layers: flip(filter.layers, layer) })} data-testid="trace-filter-layer" value={layer} />
            {EVENT_LAYER_LABELS[layer]} <span className="trace-chip__count">{counts.layers.get(layer) ?? 0}</span>
          </label>
        ))}
      </fieldset>
      <details className="trace-filters__types" open={filter.types.size > 0 ? true : undefined}>
        <summary className="field__label">Event type{filter.types.size > 0 ? ` · ${filter.types.size} chosen` : ''}</summary>
        <fieldset className="trace-filters__set">
          <legend className="visually-hidden">Event type</legend>
          {tree.types.map((type) => (
            <label key={type} className={`chip trace-chip ${filter.types.has(type) ? 'chip--accent' : ''}`}>
              <input type="checkbox" checked={filter.types.has(type)} onChange={() => onFilter({ ...filter, types: flip(filter.types, type) })} data-testid="trace-filter-type" value={type} />
              <code>{type}</code> <span className="trace-chip__count">{counts.types.get(type) ?? 0}</span>
            </label>
          ))}
        </fieldset>
      </details>
      <div className="trace-filters__actions">
        <span className="muted" role="status" data-testid="trace-shown">
          {filtered ? `${shown} of ${total} events` : `${total} events`}
        </span>
        {filtered && (
          <button type="button" className="button button--small" onClick={() => onFilter({ types: new Set(), layers: new Set() })}>
            Show all
          </button>
        )}
        <button type="button" className="button button--small" onClick={onCollapseAll} data-testid="trace-collapse-all">
          Collapse all
        </button>
        <button type="button" className="button button--small" onClick={onExpandAll}>
          Expand all
        </button>
      </div>
    </div>
  );
}

function countLeaves(tree: TraceTree): { types: Map<RunEventType, number>; layers: Map<EventLayer, number> } {
  const types = new Map<RunEventType, number>();
  const layers = new Map<EventLayer, number>();
  const walk = (nodes: readonly TraceNode[]) => {
    for (const n of nodes) {
      if (n.kind === 'span') walk(n.children);
      else {
        types.set(n.event.type, (types.get(n.event.type) ?? 0) + 1);
        layers.set(n.layer, (layers.get(n.layer) ?? 0) + 1);
      }
    }
  };
  walk(tree.children);
  return { types, layers };
}
