import { eventId, type RunEvent } from '@shared/contracts/events';
import { RequestError } from '../registry/request-error';
import type { EventJournal } from './event-journal';
import { checkImportChunk } from './import-check';
import { runsPastRetention } from './retention';

/** Which runs may not be deleted now: the host's own view (the journal cannot tell waiting from running). */
export interface LiveRuns {
  activeIds(): string[];
  waitingRunIds(): Set<string>;
}

/** Imports remembered at once (each: the runs it brought in, so its later chunks continue them). */
const IMPORTS_REMEMBERED = 32;

/** How an imported run whose trace ends before its run did is closed: it never ran (nor stopped) on this host. */
export const IMPORTED_UNFINISHED_MESSAGE =
  'Imported unfinished: the trace ends before its run did. It never ran on this host, so nothing of it was interrupted here.';

/** What one chunk of an import did (the runs.import result). */
export interface ImportReport {
  /** Events stored now. */
  imported: number;
  /** Events the history (or the chunk) already held unchanged: harmless repeats. */
  repeated: number;
  /** New events of runs the history held before this import, left out: such a run keeps its events. */
  held: number;
  /** repeated + held: every event not stored, for a caller that reports one number. */
  skipped: number;
}

export interface RunHistoryOptions {
  /** After this long without a chunk, an import is over: its unfinished runs are closed. Default 30 s. */
  importIdleMs?: number;
}

/**
 * Deleting, importing and retention over the host's journal (issue 9). Deletions go through
 * `EventJournal.remove`, which records tombstones and tells the journal's feed, so every page
 * deletes the runs too, now or when it next subscribes.
 */
export class RunHistory {
  private readonly imports = new Map<string, Set<string>>();
  private readonly importTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly importIdleMs: number;

  constructor(
    private readonly journal: EventJournal,
    private readonly live: LiveRuns,
    private readonly log: (line: string) => void = () => undefined,
    options: RunHistoryOptions = {},
  ) {
    this.importIdleMs = options.importIdleMs ?? 30_000;
  }

  /**
   * Deletes runs, and their child runs with them; refuses (conflict, by name and why) when any is running or waiting for a person.
   * A journal that cannot be rewritten (disk full, no permission) deletes nothing and rejects with
   * JournalRewriteError, whose message says what to fix (the host answers it as a host_error). Returns how many went.
   */
  async delete(asked: readonly string[]): Promise<number> {
    const active = new Set(this.live.activeIds());
    const waiting = this.live.waitingRunIds();
    // A run's child runs (issue 29: workflows it ran) go with it: they are part of it, never left behind as orphans.
    const runIds = [...new Set([...asked, ...this.journal.childRunIds(asked)])];
    for (const id of runIds) {
      if (waiting.has(id)) throw new RequestError('conflict', `run "${id}" is waiting for a person: answer or stop it first (nothing was deleted)`);
      if (active.has(id)) throw new RequestError('conflict', `run "${id}" is running: cancel it or let it end first (nothing was deleted)`);
    }
    return (await this.journal.remove(runIds)).run_ids.length;
  }

  /**
   * One chunk of an imported trace, checked first (import-check.ts): an event that contradicts the
   * history (another event under its id or at its place) or the chunk refuses the whole chunk with
   * a RequestError naming its run and seq. Events are stored trimmed and masked as recorded ones.
   * An event the history holds unchanged is a harmless repeat. A run the journal held before this
   * import (`importId`) keeps its events: its new events here are left out (`held`). `events` were
   * parsed where they arrived (the host's `runs.import` contract, the CLI's trace reader).
   */
  import(importId: string, events: readonly RunEvent[]): ImportReport {
    const mine = this.runsOfImport(importId);
    const held = (runId: string) => !mine.has(runId) && this.journal.hasRun(runId);
    const { fresh, repeated } = checkImportChunk(this.journal, events, held);
    const accepted: RunEvent[] = [];
    const adding = new Set<string>();
    let left = 0;
    for (const event of fresh) {
      if (!adding.has(event.run_id) && held(event.run_id)) {
        left += 1;
        continue;
      }
      adding.add(event.run_id);
      accepted.push(event);
    }
    const stored = accepted.length > 0 ? this.journal.appendReport(accepted, { imported: true, validated: true }) : { appended: 0, repeated: 0, refused: 0 };
    for (const runId of adding) mine.add(runId);
    this.closeImportWhenIdle(importId);
    // The check leaves the journal nothing to repeat or refuse (it refuses both first); were it to, the counts would still add up.
    return { imported: stored.appended, repeated: repeated + stored.repeated, held: left + stored.refused, skipped: events.length - stored.appended };
  }

  /** The runs an import brought in so far (its later chunks continue them). */
  private runsOfImport(importId: string): Set<string> {
    const known = this.imports.get(importId);
    if (known) return known;
    const runs = new Set<string>();
    this.imports.set(importId, runs);
    if (this.imports.size > IMPORTS_REMEMBERED) this.imports.delete(this.imports.keys().next().value as string);
    return runs;
  }

  /**
   * Closes imported runs whose trace has no `run.finished` (`importId`: only that import's), with
   * an honest end: status `interrupted`, saying it was imported unfinished. Called when an import is
   * over and at start-up; never confused with this host's interrupted runs. Returns the ids closed.
   */
  closeUnfinishedImports(importId?: string): string[] {
    const only = importId === undefined ? undefined : this.imports.get(importId);
    const open = this.journal.importedOpenRuns().filter((run) => !only || only.has(run.run_id));
    if (open.length === 0) return [];
    const ts = new Date().toISOString();
    this.journal.append(
      open.map((run) => ({
        type: 'run.finished',
        id: eventId(run.run_id, run.next_seq),
        run_id: run.run_id,
        seq: run.next_seq,
        ts,
        status: 'interrupted',
        message: IMPORTED_UNFINISHED_MESSAGE,
        rounds: run.rounds,
        event_count: run.next_seq + 1,
      })),
    );
    this.log(`closed ${open.length} imported run(s) whose trace ends unfinished`);
    return open.map((run) => run.run_id);
  }

  /** Stops waiting for imports to go idle (the host is closing). */
  dispose(): void {
    for (const timer of this.importTimers.values()) clearTimeout(timer);
    this.importTimers.clear();
  }

  /** A page sends an import in chunks and no "done": a pause this long ends it. */
  private closeImportWhenIdle(importId: string): void {
    clearTimeout(this.importTimers.get(importId));
    const timer = setTimeout(() => {
      this.importTimers.delete(importId);
      try {
        this.closeUnfinishedImports(importId);
      } catch (error) {
        this.log(`closing an import's unfinished runs failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }, this.importIdleMs);
    timer.unref();
    this.importTimers.set(importId, timer);
  }

  /**
   * Deletes every run past the retention recorded on it (never a running or waiting one). Returns the
   * ids that went. Nothing due: the journal is not touched (no rewrite).
   */
  async applyRetention(now = Date.now()): Promise<string[]> {
    const keep = new Set([...this.live.activeIds(), ...this.live.waitingRunIds()]);
    const roots = runsPastRetention(this.journal.retentionFacts(), now, keep);
    if (roots.length === 0) return [];
    // Each run with the child runs it started (and theirs): a family goes whole, and not while one of it still runs or waits.
    const due = roots.flatMap((root) => {
      const family = [root, ...this.journal.childRunIds([root])];
      return family.some((id) => keep.has(id)) ? [] : family;
    });
    if (due.length === 0) return [];
    const { run_ids } = await this.journal.remove(due);
    this.log(`retention: deleted ${run_ids.length} run(s) past their trace profile's retention`);
    return run_ids;
  }
}

/**
 * Applies retention after runs finish (a `run.finished` reaching the journal): a newer run may push
 * an older one past "keep N runs". Batched: one pass at a time, and the runs that finish while it
 * runs are covered by one more pass after it, not one each; a pass with nothing due rewrites nothing.
 * Fail-closed: a failure is logged and the runs stay. Returns the unsubscribe function.
 */
export function retainAfterRunsFinish(journal: EventJournal, history: RunHistory, log: (line: string) => void): () => void {
  let pending = false;
  let running = false;
  let stopped = false;
  const pass = async () => {
    running = true;
    while (pending && !stopped) {
      pending = false;
      try {
        await history.applyRetention();
      } catch (error) {
        log(`retention failed (nothing was deleted): ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    running = false;
  };
  const unsubscribe = journal.subscribe((slice) => {
    if (!slice.events.some((event) => event.type === 'run.finished')) return;
    pending = true;
    // Deferred out of the append's notification.
    if (!running) setImmediate(() => void (running ? undefined : pass()));
  });
  return () => {
    stopped = true;
    unsubscribe();
  };
}
