import type { RunEvent } from '@shared/contracts/events';
import { RequestError } from '../registry/request-error';
import type { EventJournal } from './event-journal';
import { runsPastRetention } from './retention';

/** Which runs may not be deleted now: the host's own view (the journal cannot tell waiting from running). */
export interface LiveRuns {
  activeIds(): string[];
  waitingRunIds(): Set<string>;
}

/** Imports remembered at once (each: the runs it brought in, so its later chunks continue them). */
const IMPORTS_REMEMBERED = 32;

/**
 * Deleting, importing and retention over the host's journal (issue 9). Deletions go through
 * `EventJournal.remove`, which records tombstones and tells the journal's feed, so every page
 * deletes the runs too, now or when it next subscribes.
 */
export class RunHistory {
  private readonly imports = new Map<string, Set<string>>();

  constructor(
    private readonly journal: EventJournal,
    private readonly live: LiveRuns,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** Deletes runs; refuses (conflict, by name and why) when any is running or waiting for a person. Returns how many went. */
  delete(runIds: readonly string[]): number {
    const active = new Set(this.live.activeIds());
    const waiting = this.live.waitingRunIds();
    for (const id of runIds) {
      if (waiting.has(id)) throw new RequestError('conflict', `run "${id}" is waiting for a person: answer or stop it first (nothing was deleted)`);
      if (active.has(id)) throw new RequestError('conflict', `run "${id}" is running: cancel it or let it end first (nothing was deleted)`);
    }
    return this.journal.remove(runIds).run_ids.length;
  }

  /**
   * One chunk of an imported trace. A run the journal held before this import (`importId`) keeps
   * its events: its events here are skipped; an event id already in the journal is skipped.
   */
  import(importId: string, events: readonly RunEvent[]): { imported: number; skipped: number } {
    let mine = this.imports.get(importId);
    if (!mine) {
      mine = new Set();
      this.imports.set(importId, mine);
      if (this.imports.size > IMPORTS_REMEMBERED) this.imports.delete(this.imports.keys().next().value as string);
    }
    const accepted: RunEvent[] = [];
    for (const event of events) {
      if (!mine.has(event.run_id)) {
        if (this.journal.hasRun(event.run_id)) continue;
        mine.add(event.run_id);
      }
      accepted.push(event);
    }
    const imported = accepted.length > 0 ? this.journal.append(accepted) : 0;
    return { imported, skipped: events.length - imported };
  }

  /** Deletes every run past the retention recorded on it (never a running or waiting one). Returns the ids that went. */
  applyRetention(now = Date.now()): string[] {
    const keep = new Set([...this.live.activeIds(), ...this.live.waitingRunIds()]);
    const due = runsPastRetention(this.journal.runs(), now, keep);
    if (due.length === 0) return [];
    const { run_ids } = this.journal.remove(due);
    this.log(`retention: deleted ${run_ids.length} run(s) past their trace profile's retention`);
    return run_ids;
  }
}

/**
 * Applies retention after each run finishes (a `run.finished` reaching the journal): a newer run may
 * push an older one past "keep N runs". Deferred out of the append's notification, and fail-closed:
 * a failure is logged and the runs stay. Returns the unsubscribe function.
 */
export function retainAfterRunsFinish(journal: EventJournal, history: RunHistory, log: (line: string) => void): () => void {
  let scheduled = false;
  return journal.subscribe((slice) => {
    if (scheduled || !slice.events.some((event) => event.type === 'run.finished')) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      try {
        history.applyRetention();
      } catch (error) {
        log(`retention failed (nothing was deleted): ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  });
}
