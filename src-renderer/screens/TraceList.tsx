import { useEffect, useRef } from 'react';
import type { RunEvent } from '@shared/contracts/events';
import { formatTime } from '../view/format';

/** Every stored event of a run, in sequence; each expands to its full JSON. `focusSeq` opens one (a cited event). */
export function TraceList({ events, focusSeq }: { events: RunEvent[]; focusSeq?: number }) {
  const listRef = useRef<HTMLOListElement>(null);
  const hasFocus = focusSeq !== undefined && events.some((e) => e.seq === focusSeq);
  useEffect(() => {
    if (!hasFocus) return;
    const el = listRef.current?.querySelector<HTMLDetailsElement>(`[data-testid="trace-event"][data-seq="${focusSeq}"]`);
    if (!el) return;
    el.open = true;
    el.scrollIntoView({ block: 'center' });
    el.querySelector('summary')?.focus({ preventScroll: true });
  }, [hasFocus, focusSeq]);

  if (events.length === 0) return <p className="muted">No events stored yet.</p>;
  return (
    <ol className="trace" data-testid="trace-list" ref={listRef}>
      {events.map((e) => (
        <li key={e.id}>
          <details className={`trace__event ${e.seq === focusSeq ? 'trace__event--focus' : ''}`} data-testid="trace-event" data-type={e.type} data-seq={e.seq}>
            <summary>
              <span className="trace__seq">#{e.seq}</span>
              <code className="trace__type">{e.type}</code>
              {'round' in e && <span className="muted">round {e.round + 1}</span>}
              <span className="trace__time muted">{formatTime(e.ts)}</span>
            </summary>
            <pre className="code">{JSON.stringify(e, null, 2)}</pre>
          </details>
        </li>
      ))}
    </ol>
  );
}
