import type { RunEvent } from '@shared/contracts/events';
import type { EventJournal } from './event-journal';

export interface JournalWriter {
  /** Takes one event from a run; it reaches the journal (and every page) with the next commit. */
  onEvent(event: RunEvent): void;
  /** Commits what is pending now (one transaction, one sync): at the end of a command, and on close. */
  flush(): void;
  /**
   * Commits what is pending and `step` in one IMMEDIATE transaction, synced before it returns (a
   * round's ledger claim with the committed decision and the events before it; a waiting run's
   * checkpoint with its last events: engine/waiting-stores.ts). When `step` throws,
   * the pending events are committed without it and its error is thrown; when the commit fails,
   * nothing of it is stored and the failure is thrown (the caller fails closed).
   */
  commit(step: () => void): void;
  /**
   * `step` rides in the next commit, whichever it is (the next round's claim, the window's timer, a
   * checkpoint, close). For writes whose loss in a crash is safe: a ledger key left in flight is
   * never run again. Until then the caller answers for them from memory.
   */
  later(step: () => void): void;
}

/**
 * How long a run's events gather before one commit, by default: about two rounds of a run whose
 * model answers at once. A longer window shares a commit's own cost among more rounds (20 ms: about
 * 0.05 ms a round less on the main thread, bench/journal-append.ts) but makes pages hear of rounds in
 * bursts, which the boundary bench times (issue 26, docs/benchmarks.md).
 */
export const WINDOW_MS = 5;

export interface JournalWriterOptions {
  log?: (line: string) => void;
  /** How long events gather before one commit. Default WINDOW_MS. */
  windowMs?: number;
  /**
   * The idempotency ledger claims keys through this writer's `commit` (the host, issue 26): a
   * committed tool call is made durable by the claim that follows it before the tool runs, in the
   * same transaction, instead of by a commit of its own. Without it, every committed decision is
   * committed at once (the ledger then writes on its own connection).
   */
  ledgerClaimsHere?: boolean;
}

/**
 * The host's runs write their events through this: a run emits a dozen per round, over several
 * turns of the event loop (the proposal, the review, the tool's result). They gather and reach the
 * journal together, one transaction and one sync, so a round costs one durable write: the ledger's
 * claim before its tool runs carries the round's events so far; the tool's result and the ledger's
 * outcome ride in the next commit. Nobody (no page, no watcher) sees an event before it is durable:
 * the journal tells its subscribers after the commit and its sync (the window's own commits are
 * synced on the thread pool: the event loop runs the next round meanwhile). What must be durable now (a committed
 * decision before its tool runs, a checkpoint, close) is committed at once.
 */
export function createJournalWriter(journal: EventJournal, options: JournalWriterOptions = {}): JournalWriter {
  const log = options.log ?? (() => undefined);
  const windowMs = options.windowMs ?? WINDOW_MS;
  let batch: RunEvent[] = [];
  let steps: Array<() => void> = [];
  let timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * One transaction: the batch, the steps riding along, then `step`. Throws what the journal threw.
   * `deferSync`: the window's own commit, synced on the thread pool (subscribers are told after).
   */
  const write = (events: RunEvent[], riding: Array<() => void>, step?: () => void, deferSync = false) => {
    journal.append(events, {
      made: true,
      deferSync,
      within: () => {
        for (const ride of riding) {
          try {
            ride();
          } catch (err) {
            // Safe to lose (see `later`): the others still commit.
            log(`a deferred history write failed: ${err instanceof Error ? err.message : String(err)}`);
          }
        }
        step?.();
      },
    });
  };
  const take = () => {
    clearTimeout(timer);
    timer = undefined;
    const taken = { events: batch, riding: steps };
    batch = [];
    steps = [];
    return taken;
  };
  const lost = (err: unknown) => log(`a run's events could not be stored: ${err instanceof Error ? err.message : String(err)}`);

  const flush = (deferSync = false) => {
    if (batch.length === 0 && steps.length === 0) return;
    const { events, riding } = take();
    try {
      write(events, riding, undefined, deferSync);
    } catch (err) {
      lost(err);
    }
  };
  // The window's commit does not wait for the disk on this thread (issue 26): committed, its events
  // survive a crash of the process; until the thread pool's sync, a power cut could take them (and
  // the ledger writes riding along, which are safe to lose), so nobody hears of them before it.
  // Everything else that commits (flush, a claim, a checkpoint) is synced before it returns.
  const windowed = () => flush(true);

  return {
    onEvent(event) {
      batch.push(event);
      // A committed decision is durable before anything acts on it: a tool call's claim commits it (below; a read's
      // claim rides in the next commit, as nothing a read does needs undoing), anything else now.
      if (event.type === 'decision.committed' && !(options.ledgerClaimsHere && event.decision.decision_type === 'tool_call')) flush();
      else timer ??= setTimeout(windowed, windowMs);
    },
    flush: () => flush(),
    commit(step) {
      const { events, riding } = take();
      let refused: { error: unknown } | undefined;
      try {
        write(events, riding, () => {
          try {
            step();
          } catch (error) {
            refused = { error };
            throw error;
          }
        });
        return;
      } catch (err) {
        if (!refused) {
          lost(err);
          throw err;
        }
      }
      // The step refused (a key already claimed) and rolled everything back: the rest is committed without it.
      try {
        write(events, riding);
      } catch (err) {
        lost(err);
      }
      throw refused.error;
    },
    later(step) {
      steps.push(step);
      timer ??= setTimeout(windowed, windowMs);
    },
  };
}
