import type { RunEvent } from '@shared/contracts/events';
import type { EventJournal } from '../events/event-journal';

/** Events read from the journal per slice: bounded memory per read, few reads. */
const SLICE = 2_000;

/**
 * One run's events, read back from the host's journal in order. It reads the whole journal (an
 * export is an explicit, occasional action; a per-run index would make it proportional to the run).
 */
export function journalRunEvents(journal: Pick<EventJournal, 'read'>, runId: string): RunEvent[] {
  const events: RunEvent[] = [];
  let after = 0;
  for (;;) {
    const slice = journal.read(after, SLICE);
    if (slice.events.length === 0) return events;
    for (const event of slice.events) if (event.run_id === runId) events.push(event);
    after = slice.position;
  }
}
