import type { RunEvent } from '@shared/contracts/events';
import type { EventJournal } from './event-journal';

export interface JournalWriter {
  /** Takes one event from a run; it reaches the journal (and every page) with the next flush. */
  onEvent(event: RunEvent): void;
  /** Writes what is pending now (one write + fsync): before a checkpoint, and on close. */
  flush(): void;
}

export interface JournalWriterOptions {
  log?: (line: string) => void;
  /** How long events gather before one write + fsync. Default 5 ms. */
  windowMs?: number;
}

/**
 * The host's runs write their events through this: a run emits a dozen per round, over several
 * turns of the event loop (the proposal, the review, the tool's result). They gather for a few ms and
 * reach the journal together, one write + fsync, made outside the run's own turn (a run waiting for
 * its model is not held up by it). Nobody sees an event before it is durable; what must be durable
 * now (a committed decision, before its tool runs; before a checkpoint; on close) is flushed at once.
 */
export function createJournalWriter(journal: EventJournal, options: JournalWriterOptions = {}): JournalWriter {
  const log = options.log ?? (() => undefined);
  const windowMs = options.windowMs ?? 5;
  let batch: RunEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const events = batch;
    batch = [];
    if (events.length === 0) return;
    try {
      journal.append(events, { made: true });
    } catch (err) {
      log(`a run's events could not be stored: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  return {
    onEvent(event) {
      batch.push(event);
      // A committed decision is followed by its tool call: the trace holds it before anything runs.
      if (event.type === 'decision.committed') flush();
      else timer ??= setTimeout(flush, windowMs);
    },
    flush,
  };
}
