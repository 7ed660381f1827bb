import type { RunEvent } from '@shared/contracts/events';
import { sameStoredEvent, storedImportedEvent } from '@shared/history/imported-event';
import { RequestError } from '../registry/request-error';
import type { EventJournal } from './event-journal';

/** What the history holds that a chunk is checked against. */
export type ImportedAgainst = Pick<EventJournal, 'eventById' | 'eventAt' | 'run'>;

/** A chunk's events as they would be stored: new ones (each once, in order), and how many the history already holds unchanged. */
export interface CheckedChunk {
  fresh: RunEvent[];
  repeated: number;
}

/**
 * The host's own check of one chunk of an import (issue 26): the page and the CLI check their
 * files first (src-shared/history/check-trace.ts), but any client may send runs.import, and only
 * the host knows what its history holds. Each event is trimmed and masked as the history stores
 * it; an event the history holds unchanged is a harmless repeat. Throws RequestError, naming the
 * run and seq, for an event that contradicts the history or another event of the chunk, so
 * nothing of the chunk is imported. `held`: a run the history held before this import, whose
 * new events are left out, so its end is not compared.
 */
export function checkImportChunk(history: ImportedAgainst, events: readonly RunEvent[], held: (runId: string) => boolean): CheckedChunk {
  const byId = new Map<string, RunEvent>();
  const byPlace = new Map<string, RunEvent>();
  const ends = new Map<string, RunEvent>();
  const fresh: RunEvent[] = [];
  let repeated = 0;
  for (const raw of events) {
    const stored = storedImportedEvent(raw);
    if (!stored.ok) throw refuse('invalid_params', raw, stored.problem);
    const event = stored.event;
    const earlier = byId.get(event.id);
    if (earlier) {
      if (!sameStoredEvent(earlier, event)) throw refuse('invalid_params', event, `the chunk holds two different events with the id "${event.id}": one was changed or damaged`);
      repeated += 1;
      continue;
    }
    const place = `${event.run_id}\u0000${event.seq}`;
    if (byPlace.has(place)) throw refuse('invalid_params', event, 'the chunk holds two different events at this place: one was changed or damaged');
    byId.set(event.id, event);
    byPlace.set(place, event);
    const same = history.eventById(event.id);
    if (same) {
      if (!sameStoredEvent(same, event)) throw refuse('conflict', event, `the history holds a different event with this id ("${same.type}" of run "${same.run_id}", seq ${same.seq}): ${OTHER}`);
      repeated += 1;
      continue;
    }
    // Not the same id, so not the same event (an event's id names it).
    const there = history.eventAt(event.run_id, event.seq);
    if (there) throw refuse('conflict', event, `the history holds a different event at this place ("${there.type}", id "${there.id}"): ${OTHER}`);
    if (event.type === 'run.finished' && !held(event.run_id)) {
      const end = ends.get(event.run_id);
      if (end) throw refuse('invalid_params', event, `the chunk ends this run twice (also at seq ${end.seq})`);
      if (history.run(event.run_id)?.run.finished_at !== undefined) throw refuse('conflict', event, 'the history holds this run already ended at another seq');
      ends.set(event.run_id, event);
    }
    fresh.push(event);
  }
  return { fresh, repeated };
}

/** Why an event differs from the history's: said for the person who holds the trace. */
const OTHER = 'the trace was changed or damaged, or its run is another under the same id';

function refuse(code: 'invalid_params' | 'conflict', event: RunEvent, why: string): RequestError {
  return new RequestError(code, `run "${event.run_id}", seq ${event.seq}: ${why}; nothing of this part of the import was imported`);
}
