/** A clock and a timer, injectable so a test counts reports instead of waiting for them. */
export interface ThrottleClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const REAL_CLOCK: ThrottleClock = {
  now: () => performance.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface Throttled<T> {
  /** Offers one report: passed on at once, or kept as the latest until the interval is over. */
  push(value: T): void;
  /** The call ended: a kept report is passed on now (the last one is never lost), and nothing after. */
  end(): void;
}

/**
 * Thins out one call's progress so a chatty server cannot flood the run's journal: the first report
 * goes at once, then at most one per `everyMs`; a report that arrives too soon replaces the kept one,
 * which goes when the interval is over (or when the call ends), so the last state is always shown.
 */
export function throttleReports<T>(report: (value: T) => void, everyMs: number, clock: ThrottleClock = REAL_CLOCK): Throttled<T> {
  let last = -Infinity;
  let kept: { value: T } | undefined;
  let timer: unknown;
  let ended = false;
  const send = (value: T): void => {
    last = clock.now();
    kept = undefined;
    report(value);
  };
  const flushKept = (): void => {
    timer = undefined;
    if (kept) send(kept.value);
  };
  return {
    push(value) {
      if (ended) return;
      const wait = last + everyMs - clock.now();
      if (wait <= 0 && timer === undefined) {
        send(value);
        return;
      }
      kept = { value };
      timer ??= clock.setTimeout(flushKept, Math.max(0, wait));
    },
    end() {
      if (ended) return;
      ended = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      if (kept) send(kept.value);
    },
  };
}
