import { useEffect, useRef, useState } from 'react';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import type { RunEvent } from '@shared/contracts/events';
import { formatTime } from '../view/format';
import { FIRST_FRAME_RECT, useDocumentOffset } from './runs/use-document-offset';

/**
 * Rows rendered beyond the visible ones on each side. Generous on purpose: a trace of up to ~50 events is whole in
 * the DOM (find-in-page works on it), a longer one holds about a screenful plus 100 rows whatever its length.
 */
const OVERSCAN = 50;

/**
 * Every stored event of a run, in sequence, as a virtual list (only rows near the viewport are rendered); an event's
 * JSON is built only when it is opened. `focusSeq` opens one (a cited event) and scrolls to it.
 */
export function TraceList({ events, focusSeq }: { events: RunEvent[]; focusSeq?: number }) {
  const listRef = useRef<HTMLOListElement>(null);
  const scrollMargin = useDocumentOffset(listRef);
  // What the person opened or closed; an event they never touched is open only when it is the cited one.
  const [toggled, setToggled] = useState<ReadonlyMap<number, boolean>>(new Map());
  const isOpen = (seq: number) => toggled.get(seq) ?? seq === focusSeq;
  const virtualizer = useWindowVirtualizer({ count: events.length, estimateSize: () => 34, overscan: OVERSCAN, scrollMargin, initialRect: FIRST_FRAME_RECT, getItemKey: (i) => events[i]?.id ?? i });
  const focusIndex = focusSeq === undefined ? -1 : events.findIndex((e) => e.seq === focusSeq);

  useEffect(() => {
    if (focusIndex < 0) return;
    virtualizer.scrollToIndex(focusIndex, { align: 'center' });
    // The row exists once the scroll has rendered it.
    const frame = requestAnimationFrame(() => listRef.current?.querySelector<HTMLElement>(`[data-testid="trace-event"][data-seq="${focusSeq}"] summary`)?.focus({ preventScroll: true }));
    return () => cancelAnimationFrame(frame);
    // Scroll once per cited event (and once its offset is known), not on every re-measure.
  }, [focusIndex, focusSeq, scrollMargin, virtualizer]);

  if (events.length === 0) return <p className="muted">No events stored yet.</p>;
  const items = virtualizer.getVirtualItems();
  return (
    <ol className="trace" data-testid="trace-list" ref={listRef} style={{ position: 'relative', height: virtualizer.getTotalSize() }}>
      {items.map((item) => {
        const e = events[item.index]!;
        const open = isOpen(e.seq);
        return (
          <li key={item.key} ref={virtualizer.measureElement} data-index={item.index} style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${item.start - scrollMargin}px)` }}>
            <details
              className={`trace__event ${e.seq === focusSeq ? 'trace__event--focus' : ''}`}
              data-testid="trace-event"
              data-type={e.type}
              data-seq={e.seq}
              open={open}
              onToggle={(ev) => {
                const now = ev.currentTarget.open;
                if (now !== open) setToggled((m) => new Map(m).set(e.seq, now));
              }}
            >
              <summary>
                <span className="trace__seq">#{e.seq}</span>
                <code className="trace__type">{e.type}</code>
                {'round' in e && <span className="muted">round {e.round + 1}</span>}
                <span className="trace__time muted">{formatTime(e.ts)}</span>
              </summary>
              {open && <pre className="code">{JSON.stringify(e, null, 2)}</pre>}
            </details>
          </li>
        );
      })}
    </ol>
  );
}
