import { eventId, type RunEventOf } from '@shared/contracts/events';
import type { OpenRun } from './event-journal';

/** The end of a run cut off midway (its process stopped), continuing its sequence, saying who stopped. */
export function interruptedEnd(run: OpenRun, message: string): RunEventOf<'run.finished'> {
  return {
    type: 'run.finished',
    id: eventId(run.run_id, run.next_seq),
    run_id: run.run_id,
    seq: run.next_seq,
    ts: new Date().toISOString(),
    status: 'interrupted',
    message,
    rounds: run.rounds,
    event_count: run.next_seq + 1,
  };
}
