import { useState } from 'react';
import type { RunEvent } from '@shared/contracts/events';
import { TraceTreeBuilder, type TraceTree } from './trace-tree';

interface Kept {
  events: readonly RunEvent[];
  kept: ReturnType<typeof nextTree>;
  tree: TraceTree;
}

function keep(previous: Kept | undefined, events: readonly RunEvent[]): Kept {
  const kept = nextTree(previous?.kept, events);
  return { events, kept, tree: kept.builder.tree() };
}

/**
 * The trace tree of a run's events (sorted by sequence, as runEvents reads them), kept across renders: when the new
 * events are the old ones plus some after them (a live batch), only those are placed; otherwise (a gap filled, a
 * deletion, another run) it is built again. Adjusted while rendering, as React's docs do for state that follows a
 * prop; a repeated render places nothing twice (the batch is already in).
 */
export function useTraceTree(events: readonly RunEvent[]): TraceTree {
  const [state, setState] = useState(() => keep(undefined, events));
  if (state.events === events) return state.tree;
  const next = keep(state, events);
  setState(next);
  return next.tree;
}

/** What useTraceTree keeps: the builder, and the last event it placed (to tell a continuation from a change). */
export function nextTree(previous: { builder: TraceTreeBuilder; last: RunEvent | undefined } | undefined, events: readonly RunEvent[]) {
  // Each query reads new objects: an event is known by its id.
  const count = previous?.builder.count ?? 0;
  if (previous && count > 0 && count <= events.length && events[count - 1]?.id === previous.last?.id) {
    if (previous.builder.append(events.slice(count))) return { builder: previous.builder, last: events.at(-1) };
  }
  const sorted = events.every((e, i) => i === 0 || events[i - 1]!.seq < e.seq) ? events : [...events].sort((a, b) => a.seq - b.seq);
  return { builder: TraceTreeBuilder.of(sorted), last: sorted.at(-1) };
}
