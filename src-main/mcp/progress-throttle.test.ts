import { describe, expect, it } from 'vitest';
import { throttleReports, type ThrottleClock } from './progress-throttle';

/** A hand-driven clock: the test moves time and fires due timers, so it counts reports without waiting. */
function manualClock(): ThrottleClock & { advance(ms: number): void } {
  let now = 0;
  const timers = new Map<number, { at: number; run: () => void }>();
  let next = 1;
  return {
    now: () => now,
    setTimeout(run, ms) {
      const id = next++;
      timers.set(id, { at: now + ms, run });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      now += ms;
      for (const [id, timer] of [...timers]) {
        if (timer.at <= now) {
          timers.delete(id);
          timer.run();
        }
      }
    },
  };
}

describe('progress throttle', () => {
  it('passes the first report at once and at most one per interval after it, however chatty the server', () => {
    const clock = manualClock();
    const seen: number[] = [];
    const throttled = throttleReports<number>((n) => seen.push(n), 1_000, clock);
    // 1,000 reports over 2.5 s: one every 2.5 ms.
    for (let i = 1; i <= 1_000; i++) {
      throttled.push(i);
      clock.advance(2.5);
    }
    throttled.end();
    // First at once, then one per second (at 1 s and 2 s), and the last on end: four, not a thousand.
    expect(seen).toHaveLength(4);
    expect(seen[0]).toBe(1);
    expect(seen.at(-1)).toBe(1_000);
  });

  it('sends a kept report when the interval is over, so a server that goes quiet still shows its latest state', () => {
    const clock = manualClock();
    const seen: number[] = [];
    const throttled = throttleReports<number>((n) => seen.push(n), 1_000, clock);
    throttled.push(1);
    clock.advance(100);
    throttled.push(2);
    throttled.push(3);
    expect(seen).toEqual([1]);
    clock.advance(900);
    expect(seen).toEqual([1, 3]);
  });

  it('reports nothing after the call ended, and nothing twice', () => {
    const clock = manualClock();
    const seen: number[] = [];
    const throttled = throttleReports<number>((n) => seen.push(n), 1_000, clock);
    throttled.push(1);
    throttled.end();
    throttled.push(2);
    clock.advance(5_000);
    throttled.end();
    expect(seen).toEqual([1]);
  });
});
