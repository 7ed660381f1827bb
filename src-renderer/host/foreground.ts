/**
 * Reads a person is waiting for (a run being opened) come before the page's background indexing
 * (issue 26). While a page indexes a long history, each of its stores is a transaction over every
 * table and a burst of work on the main thread: a run opened meanwhile waited behind them. Indexing
 * now asks `whenForegroundIdle` before each store, and a screen marks what a person waits for with
 * `inForeground`; the indexing resumes once that has been shown (a frame after it settled), or after
 * MAX_YIELD_MS at most, so it never starves.
 */

/** The longest the indexing yields to one wait: a read that hangs does not stop it. */
export const MAX_YIELD_MS = 3_000;

let active = 0;
let idle: Array<() => void> = [];

const release = () => {
  active -= 1;
  if (active > 0) return;
  const waiting = idle;
  idle = [];
  for (const resume of waiting) resume();
};

/** After the next frame is painted (a hidden page paints none: then after a moment). */
function afterPaint(then: () => void): void {
  if (typeof requestAnimationFrame !== 'function') {
    setTimeout(then, 0);
    return;
  }
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    then();
  };
  const fallback = setTimeout(once, 100);
  requestAnimationFrame(() => {
    clearTimeout(fallback);
    setTimeout(once, 0);
  });
}

/** Marks `work` as what a person waits for; returns it unchanged. */
export function inForeground<T>(work: Promise<T>): Promise<T> {
  active += 1;
  const done = () => afterPaint(release);
  work.then(done, done);
  return work;
}

/** Resolves when nothing a person waits for is in progress, or after `maxMs`. */
export function whenForegroundIdle(maxMs = MAX_YIELD_MS): Promise<void> {
  if (active === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      idle = idle.filter((r) => r !== resume);
      resolve();
    }, maxMs);
    const resume = () => {
      clearTimeout(timer);
      resolve();
    };
    idle.push(resume);
  });
}

/** How many foreground reads are in progress (tests). */
export const foregroundActive = () => active;
