import { performance } from 'node:perf_hooks';
import { EventJournal } from '../src-main/events/event-journal';

/**
 * Reports every call of EventJournal.appendReport (the history's appends, on the event loop) to `onSpan`: when
 * it started and how long it held the thread (performance.now() ms). For the boundary's profiling benches.
 */
export function spanAppends(onSpan: (startedAt: number, ms: number) => void): void {
  const appendReport = EventJournal.prototype.appendReport;
  EventJournal.prototype.appendReport = function spanned(this: EventJournal, ...args: Parameters<EventJournal['appendReport']>) {
    const t0 = performance.now();
    try {
      return appendReport.apply(this, args);
    } finally {
      onSpan(t0, performance.now() - t0);
    }
  };
}
