import type { RunEventType } from '@shared/contracts/events';
import type { EventLayer, TraceNode, TraceSpan, TraceTree } from './trace-tree';

/**
 * The trace tree as the rows a virtual list draws: spans the person collapsed hide their children, filters hide
 * events (and spans left empty). Pure, O(events) per call; and the keyboard's moves over those rows, as the ARIA
 * tree pattern has them.
 */

/** Empty sets mean "all": a filter the person has not touched shows everything. */
export interface TraceFilter {
  types: ReadonlySet<RunEventType>;
  layers: ReadonlySet<EventLayer>;
}

export const NO_FILTER: TraceFilter = { types: new Set(), layers: new Set() };

export interface TraceRow {
  node: TraceNode;
  /** 1 for the top level (aria-level). */
  level: number;
  /** The span the row is in, when it is not at the top. */
  parent?: string;
  /** Position among its visible siblings, from 1, and their number (aria-posinset / aria-setsize: most rows are not in the DOM). */
  pos: number;
  size: number;
  /** A span's: its children are shown. */
  expanded?: boolean;
}

function shows(node: TraceNode, filter: TraceFilter, always: string | undefined): boolean {
  if (node.kind === 'span') return true;
  if (node.id === always) return true;
  return (filter.types.size === 0 || filter.types.has(node.event.type)) && (filter.layers.size === 0 || filter.layers.has(node.layer));
}

/**
 * The rows shown. `collapsed` holds span ids; `always` is an event id shown whatever the filters say (a cited
 * event: the caller opens its spans, ancestorsOf).
 */
export function visibleRows(tree: TraceTree, collapsed: ReadonlySet<string>, filter: TraceFilter, always?: string): TraceRow[] {
  const rows: TraceRow[] = [];
  const filtering = filter.types.size > 0 || filter.layers.size > 0;

  // Which nodes are kept at all (a span only with a kept event below it); computed once, bottom-up.
  const kept = new Set<TraceNode>();
  const keep = (node: TraceNode): boolean => {
    const yes = node.kind === 'event' ? shows(node, filter, always) : node.children.map(keep).some(Boolean);
    if (yes) kept.add(node);
    return yes;
  };
  if (filtering) tree.children.forEach(keep);
  const isKept = (n: TraceNode) => !filtering || kept.has(n);

  const walk = (nodes: readonly TraceNode[], level: number, parent: string | undefined) => {
    const shown = nodes.filter(isKept);
    shown.forEach((node, i) => {
      const expanded = node.kind === 'span' ? !collapsed.has(node.id) : undefined;
      rows.push({ node, level, parent, pos: i + 1, size: shown.length, expanded });
      if (node.kind === 'span' && expanded) walk(node.children, level + 1, node.id);
    });
  };
  walk(tree.children, 1, undefined);
  return rows;
}

/** The ids of the spans holding a node, outermost first (empty for a top-level node or an unknown id). */
export function ancestorsOf(tree: TraceTree, id: string): string[] {
  const path: string[] = [];
  const find = (nodes: readonly TraceNode[]): boolean => {
    for (const n of nodes) {
      if (n.id === id) return true;
      if (n.kind === 'span') {
        path.push(n.id);
        if (find(n.children)) return true;
        path.pop();
      }
    }
    return false;
  };
  return find(tree.children) ? path : [];
}

/** Every span id of the tree (collapse all). */
export function allSpanIds(tree: TraceTree): string[] {
  const ids: string[] = [];
  const walk = (nodes: readonly TraceNode[]) => {
    for (const n of nodes) {
      if (n.kind === 'span') {
        ids.push(n.id);
        walk(n.children);
      }
    }
  };
  walk(tree.children);
  return ids;
}

/** What a key does in the tree: move the focus, open or close a span, open or close an event's JSON. */
export type TreeMove = { focus: string } | { expand: string } | { collapse: string } | { toggleEvent: string } | undefined;

/** The ARIA tree pattern's keys over the visible rows (https://www.w3.org/WAI/ARIA/apg/patterns/treeview/). */
export function treeMove(rows: readonly TraceRow[], focused: string | undefined, key: string): TreeMove {
  if (rows.length === 0) return undefined;
  const at = rows.findIndex((r) => r.node.id === focused);
  const row = rows[at];
  const to = (i: number) => ({ focus: rows[Math.max(0, Math.min(rows.length - 1, i))]!.node.id });
  if (!row) return key === 'End' ? to(rows.length - 1) : ['ArrowDown', 'ArrowUp', 'Home'].includes(key) ? to(0) : undefined;
  const span: TraceSpan | undefined = row.node.kind === 'span' ? row.node : undefined;
  switch (key) {
    case 'ArrowDown':
      return to(at + 1);
    case 'ArrowUp':
      return to(at - 1);
    case 'Home':
      return to(0);
    case 'End':
      return to(rows.length - 1);
    case 'ArrowRight':
      if (!span) return undefined;
      return row.expanded ? (rows[at + 1]?.parent === span.id ? to(at + 1) : undefined) : { expand: span.id };
    case 'ArrowLeft':
      if (span && row.expanded) return { collapse: span.id };
      return row.parent === undefined ? undefined : { focus: row.parent };
    case 'Enter':
      if (span) return row.expanded ? { collapse: span.id } : { expand: span.id };
      return { toggleEvent: row.node.id };
    default:
      return undefined;
  }
}
