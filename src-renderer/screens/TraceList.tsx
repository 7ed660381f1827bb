import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import type { RunEvent } from '@shared/contracts/events';
import { formatMs, formatTime, plural } from '../view/format';
import { describeModelUsage, modelUsageTotals } from '../db/model-usage';
import { FIRST_FRAME_RECT, useDocumentOffset } from './runs/use-document-offset';
import { type TraceNode, type TraceSpan, type TraceTree } from './trace/trace-tree';
import { useTraceTree } from './trace/use-trace-tree';
import { ancestorsOf, allSpanIds, treeMove, visibleRows, type TraceFilter, type TraceRow } from './trace/trace-rows';
import { TraceFilters } from './trace/TraceFilters';
import { traceRecord } from '@shared/contracts/trace-format';
import { ScrollPre } from '../components/ScrollPre';

/**
 * Rows rendered beyond the visible ones on each side. Generous on purpose: a trace of up to ~50 rows is whole in
 * the DOM (find-in-page works on it), a longer one holds about a screenful plus 100 rows whatever its length.
 */
const OVERSCAN = 50;
const INDENT_PX = 16;

/**
 * A run's stored events as a tree nested by layer (workflow node → SCS phase → round → step, trace/trace-tree.ts)
 * with a waterfall of their times, as a virtual list (only rows near the viewport are rendered); an event's JSON is
 * built only when it is opened. `focusSeq` opens one (a cited event), opens its spans and scrolls to it.
 */
export function TraceList({ events, focusSeq }: { events: RunEvent[]; focusSeq?: number }) {
  const tree = useTraceTree(events);
  const focusId = focusSeq === undefined ? undefined : events.find((e) => e.seq === focusSeq)?.id;
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [filter, setFilter] = useState<TraceFilter>({ types: new Set(), layers: new Set() });
  const rows = useMemo(() => visibleRows(tree, collapsed, filter, focusId), [tree, collapsed, filter, focusId]);

  // A cited event's spans open, once per citation (the person may close them again): adjusted while rendering.
  const [cited, setCited] = useState(focusId);
  if (cited !== focusId) {
    setCited(focusId);
    const path = focusId === undefined ? [] : ancestorsOf(tree, focusId);
    if (path.some((id) => collapsed.has(id))) setCollapsed(new Set([...collapsed].filter((id) => !path.includes(id))));
  }

  if (events.length === 0) return <p className="muted">No events stored yet.</p>;
  return (
    <div className="trace-view">
      <TraceFilters
        tree={tree}
        filter={filter}
        onFilter={setFilter}
        shown={rows.reduce((n, r) => n + (r.node.kind === 'event' ? 1 : 0), 0)}
        total={events.length}
        filtered={filter.types.size + filter.layers.size > 0}
        onCollapseAll={() => setCollapsed(new Set(allSpanIds(tree)))}
        onExpandAll={() => setCollapsed(new Set())}
      />
      <TraceRows tree={tree} rows={rows} focusId={focusId} onCollapsed={setCollapsed} />
    </div>
  );
}

function TraceRows({
  tree,
  rows,
  focusId,
  onCollapsed,
}: {
  tree: TraceTree;
  rows: TraceRow[];
  focusId: string | undefined;
  onCollapsed: (update: (c: ReadonlySet<string>) => ReadonlySet<string>) => void;
}) {
  const listRef = useRef<HTMLOListElement>(null);
  const scrollMargin = useDocumentOffset(listRef);
  // What the person opened or closed; an event they never touched is open only when it is the cited one.
  const [toggled, setToggled] = useState<ReadonlyMap<string, boolean>>(new Map());
  const isOpen = (id: string) => toggled.get(id) ?? id === focusId;
  // The row the tree's keyboard focus is on (roving tabindex); the first row until the person moves.
  const [active, setActive] = useState<string | undefined>(undefined);
  const tabStop = active !== undefined && rows.some((r) => r.node.id === active) ? active : (focusId ?? rows[0]?.node.id);
  const virtualizer = useWindowVirtualizer({ count: rows.length, estimateSize: () => 34, overscan: OVERSCAN, scrollMargin, initialRect: FIRST_FRAME_RECT, getItemKey: (i) => rows[i]?.node.id ?? i });
  const focusIndex = focusId === undefined ? -1 : rows.findIndex((r) => r.node.id === focusId);

  const focusRow = (id: string) => {
    const index = rows.findIndex((r) => r.node.id === id);
    if (index < 0) return;
    virtualizer.scrollToIndex(index, { align: 'auto' });
    // The row exists once the scroll has rendered it.
    requestAnimationFrame(() => listRef.current?.querySelector<HTMLElement>(`[data-row-id="${CSS.escape(id)}"]`)?.focus({ preventScroll: true }));
  };

  useEffect(() => {
    if (focusIndex < 0 || focusId === undefined) return;
    virtualizer.scrollToIndex(focusIndex, { align: 'center' });
    const frame = requestAnimationFrame(() => listRef.current?.querySelector<HTMLElement>(`[data-row-id="${CSS.escape(focusId)}"]`)?.focus({ preventScroll: true }));
    return () => cancelAnimationFrame(frame);
    // Scroll once per cited event (and once its offset is known), not on every re-measure.
  }, [focusIndex, focusId, scrollMargin, virtualizer]);

  const onKeyDown = (ev: KeyboardEvent<HTMLOListElement>) => {
    const move = treeMove(rows, tabStop, ev.key);
    if (!move) return;
    // Also keeps a focused summary from toggling its details a second time.
    ev.preventDefault();
    if ('focus' in move) {
      setActive(move.focus);
      focusRow(move.focus);
    } else if ('expand' in move) onCollapsed((c) => without(c, move.expand));
    else if ('collapse' in move) onCollapsed((c) => new Set(c).add(move.collapse));
    else setToggled((m) => new Map(m).set(move.toggleEvent, !isOpen(move.toggleEvent)));
  };

  if (rows.length === 0) return <p className="muted">No event matches these filters.</p>;
  const span = Math.max(tree.end - tree.start, 1);
  return (
    <>
      <div className="trace-axis" aria-hidden="true">
        <span>{formatTime(new Date(tree.start).toISOString())}</span>
        <span className="trace-axis__scale">
          <span>0</span>
          <span>{formatMs(Math.round(span / 2))}</span>
          <span>{formatMs(span)}</span>
        </span>
      </div>
      <ol className="trace trace--tree" role="tree" aria-label="Trace" data-testid="trace-list" ref={listRef} onKeyDown={onKeyDown} style={{ position: 'relative', height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index]!;
          const { node } = row;
          return (
            <li
              key={item.key}
              ref={virtualizer.measureElement}
              data-index={item.index}
              data-row-id={node.id}
              role="treeitem"
              aria-level={row.level}
              aria-posinset={row.pos}
              aria-setsize={row.size}
              aria-expanded={row.expanded}
              // The row's words in the order it shows them (WCAG 2.5.3); an opened event is named by its content, JSON and all.
              aria-label={node.kind === 'span' ? spanRowName(node, spanUsage(tree, node.id)) : isOpen(node.id) ? undefined : eventRowName(node, tree)}
              tabIndex={node.id === tabStop ? 0 : -1}
              // A click focuses the row's summary: the keys go on from the row it is in.
              onFocus={() => setActive(node.id)}
              style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${item.start - scrollMargin}px)` }}
            >
              {node.kind === 'span' ? (
                <SpanRow span={node} row={row} usage={spanUsage(tree, node.id)} tree={tree} span_ms={span} onToggle={() => onCollapsed((c) => (c.has(node.id) ? without(c, node.id) : new Set(c).add(node.id)))} />
              ) : (
                <EventRow row={row} node={node} open={isOpen(node.id)} focused={node.id === focusId} tree={tree} span_ms={span} onToggle={(now) => setToggled((m) => new Map(m).set(node.id, now))} />
              )}
            </li>
          );
        })}
      </ol>
    </>
  );
}

function SpanRow({ span, row, usage, tree, span_ms, onToggle }: { span: TraceSpan; row: TraceRow; usage?: string; tree: TraceTree; span_ms: number; onToggle: () => void }) {
  return (
    <div className={`trace__span trace__span--${span.layer}`} data-testid="trace-span" data-layer={span.layer} onClick={onToggle}>
      {/* Spaces between the parts (a flex row does not show them): its text reads as words, as its name does. */}
      <span className="trace__name" style={{ paddingLeft: (row.level - 1) * INDENT_PX }}>
        <span className="trace__caret" aria-hidden="true">
          {row.expanded ? '▾' : '▸'}
        </span>{' '}
        <strong className="trace__label">{span.label}</strong>{' '}
        {span.detail && <span className="trace__detail muted">{span.detail}</span>}{' '}
        <span className="trace__count muted">{plural(span.events, 'event')}</span>{' '}
        {usage && <span className="trace__usage muted">{usage}</span>}{' '}
        <span className="trace__time muted">{formatMs(Math.round(span.end - span.start))}</span>
      </span>
      <Bar node={span} tree={tree} span_ms={span_ms} />
    </div>
  );
}

function EventRow({ row, node, open, focused, tree, span_ms, onToggle }: { row: TraceRow; node: Extract<TraceNode, { kind: 'event' }>; open: boolean; focused: boolean; tree: TraceTree; span_ms: number; onToggle: (open: boolean) => void }) {
  const e = node.event;
  const call = describeModelUsage(modelUsageTotals([e]));
  return (
    <details
      className={`trace__event ${focused ? 'trace__event--focus' : ''}`}
      data-testid="trace-event"
      data-type={e.type}
      data-seq={e.seq}
      data-layer={node.layer}
      open={open}
      onToggle={(ev) => {
        const now = ev.currentTarget.open;
        if (now !== open) onToggle(now);
      }}
    >
      <summary tabIndex={-1}>
        <span className="trace__name" style={{ paddingLeft: (row.level - 1) * INDENT_PX }}>
          <span className="trace__seq">#{e.seq}</span>{' '}
          <code className="trace__type">{e.type}</code>{' '}
          {call && (
            <span className="trace__usage muted" data-testid="trace-call">
              {call}
            </span>
          )}{' '}
          {e.type === 'tool.executed' && <span className="trace__usage muted">{formatMs(Math.round(e.execution.duration_ms))}</span>}{' '}
          {/* Its place on the run's time axis (the waterfall's), the clock time on hover. */}
          <span className="trace__time muted" title={formatTime(e.ts)}>
            +{formatMs(Math.max(0, Math.round(node.end - tree.start)))}
          </span>
        </span>
        <Bar node={node} tree={tree} span_ms={span_ms} />
      </summary>
      {/* The event as an exported trace holds it: its rounds numbered from 1, as every screen shows them. */}
      {open && <ScrollPre>{JSON.stringify(traceRecord(e), null, 2)}</ScrollPre>}
    </details>
  );
}

/** A span row's name: what it shows, in order (label, detail, events, model use, duration). */
function spanRowName(span: TraceSpan, usage: string | undefined): string {
  return [span.label, span.detail, plural(span.events, 'event'), usage, formatMs(Math.round(span.end - span.start))].filter(Boolean).join(', ');
}

/** An event row's name: what its summary shows, in order (number and type, model use, tool time, time on the run's axis). */
function eventRowName(node: Extract<TraceNode, { kind: 'event' }>, tree: TraceTree): string {
  const e = node.event;
  const tool = e.type === 'tool.executed' ? formatMs(Math.round(e.execution.duration_ms)) : undefined;
  return [`#${e.seq} ${e.type}`, describeModelUsage(modelUsageTotals([e])), tool, `+${formatMs(Math.max(0, Math.round(node.end - tree.start)))}`].filter(Boolean).join(', ');
}

/** The node's time against the run's: a bar for something that took time, a tick for an instant. */
function Bar({ node, tree, span_ms }: { node: TraceNode; tree: TraceTree; span_ms: number }) {
  const left = ((node.start - tree.start) / span_ms) * 100;
  const width = ((node.end - node.start) / span_ms) * 100;
  return (
    <span className="trace__track" aria-hidden="true">
      <span
        className={`trace__bar trace__bar--${node.kind === 'span' && node.layer === 'step' ? node.label : node.layer} ${node.end === node.start ? 'trace__bar--instant' : ''}`}
        style={{ left: `${Math.min(Math.max(left, 0), 100)}%`, width: `${Math.min(width, 100)}%` }}
        title={`+${formatMs(Math.round(node.start - tree.start))}${node.end > node.start ? ` · ${formatMs(Math.round(node.end - node.start))}` : ''}`}
      />
    </span>
  );
}

function without(set: ReadonlySet<string>, id: string): ReadonlySet<string> {
  const next = new Set(set);
  next.delete(id);
  return next;
}

/** A span's model calls (tokens and model time), kept by the tree as events arrive: only rendered rows ask. */
function spanUsage(tree: TraceTree, spanId: string): string | undefined {
  const totals = tree.usage.get(spanId);
  return totals ? describeModelUsage(totals) : undefined;
}
