import type { HistoryFold } from './history-fold';

export interface BackgroundFoldOptions {
  /** True while the host is busy (runs under way, a page asking): they come first, the fold waits for a quiet host. */
  busy: () => boolean;
  log: (line: string) => void;
  /** Before the first chunk after the host starts or new events arrive (its start and a page's first asks come first). */
  delayMs?: number;
  /** Between chunks: other work on the event loop goes first. */
  gapMs?: number;
  /** Events a chunk (of the types the folds read): a request that arrives meanwhile waits for one chunk at most. */
  chunk?: number;
  /** Outcomes ranked a piece, once folded through (history-fold.ts's settleChunk). */
  settleChunk?: number;
}

export interface BackgroundFold {
  /** New events (or the host's start): they are folded once the host is quiet. */
  nudge(): void;
  stop(): void;
}

const DELAY_MS = 3_000;
const GAP_MS = 5;
const CHUNK = 250;
const SETTLE_CHUNK = 1_000;
const MAX_BACKOFF_MS = 60_000;

/**
 * Keeps the host's derived figures (promotion, the Learning list: history-fold.ts) caught up while
 * nobody waits for them. A history never folded (a data folder from before schema 4, or a long
 * import) took one full pass at the first ask: 8–10 s at 1M events, so the first Learning screen or
 * Promotion card after an upgrade said "Computing from the trace…" that long (docs/benchmarks.md).
 * Folded here in small chunks while the host is quiet (then the nodes' ranks, a piece at a time: a
 * read would rank a long node whole, 0.5–0.8 s at 1M events), it is ready before anyone asks; an ask that
 * comes first still does the rest itself (history-fold.ts's catchUp), and either picks up where the
 * other stopped: the position folded through and where ranks are stale are in the database, written with each chunk.
 */
export function foldInBackground(fold: Pick<HistoryFold, 'foldChunk' | 'settleChunk'>, options: BackgroundFoldOptions): BackgroundFold {
  const delayMs = options.delayMs ?? DELAY_MS;
  const gapMs = options.gapMs ?? GAP_MS;
  const chunk = options.chunk ?? CHUNK;
  const settleChunk = options.settleChunk ?? SETTLE_CHUNK;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let failures = 0;

  const schedule = (ms: number) => {
    if (stopped || timer !== undefined) return;
    timer = setTimeout(tick, ms);
    // Never what keeps a process alive.
    timer.unref?.();
  };
  function tick(): void {
    timer = undefined;
    if (stopped) return;
    if (options.busy()) {
      schedule(delayMs);
      return;
    }
    let more: boolean;
    try {
      // Folded through, what the next reads would do first (ranking a long node again) is done too, a piece at a time.
      more = fold.foldChunk(chunk) || fold.settleChunk(settleChunk);
      failures = 0;
    } catch (error) {
      failures += 1;
      // Said once a streak; an ask folds (and reports) for itself meanwhile. Nothing was half-written: a chunk is one transaction.
      if (failures === 1) {
        options.log(`history: the promotion figures and learning examples could not be brought up to date in the background (${error instanceof Error ? error.message : String(error)}); they are folded when asked`);
      }
      schedule(Math.min(MAX_BACKOFF_MS, delayMs * 2 ** (failures - 1)));
      return;
    }
    if (more) schedule(gapMs);
  }

  return {
    nudge: () => schedule(delayMs),
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
