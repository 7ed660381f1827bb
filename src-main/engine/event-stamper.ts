import { eventId, type RunEvent, type RunEventPayload } from '@shared/contracts/events';

export type EventSink = (event: RunEvent) => void;

/** Gives each payload its envelope: deterministic id, per-run sequence, timestamp. */
export function createEventStamper(runId: string, sink: EventSink, startSeq = 0) {
  let seq = startSeq;
  // A round's dozen events mostly share a millisecond: its ISO text is made once (issue 26).
  let stampedAt = Number.NaN;
  let ts = '';
  return {
    emit(payload: RunEventPayload): RunEvent {
      const now = Date.now();
      if (now !== stampedAt) {
        stampedAt = now;
        ts = new Date(now).toISOString();
      }
      const event = { ...payload, id: eventId(runId, seq), run_id: runId, seq, ts } as RunEvent;
      seq += 1;
      sink(event);
      return event;
    },
    /** The number of events emitted so far (the next event's seq). */
    get count(): number {
      return seq;
    },
  };
}
