import { describe, expect, it } from 'vitest';
import { foregroundActive, inForeground, whenForegroundIdle } from './foreground';

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

/** Whether `p` settled within `ms`. */
const settledWithin = (p: Promise<unknown>, ms: number) => Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe('background work yields to what a person waits for', () => {
  it('with nothing in the foreground, background work goes on at once', async () => {
    expect(foregroundActive()).toBe(0);
    expect(await settledWithin(whenForegroundIdle(), 0)).toBe(true);
  });

  it('waits while a foreground read is in progress, and goes on once it settled and was shown', async () => {
    const read = deferred<string>();
    const marked = inForeground(read.promise);
    const idle = whenForegroundIdle(10_000);
    expect(await settledWithin(idle, 50)).toBe(false);
    read.resolve('first page');
    expect(await marked).toBe('first page');
    expect(await settledWithin(idle, 1_000)).toBe(true);
    expect(foregroundActive()).toBe(0);
  });

  it('a failed foreground read releases it too', async () => {
    const read = deferred<string>();
    const marked = inForeground(read.promise);
    const idle = whenForegroundIdle(10_000);
    read.reject(new Error('the host went away'));
    await expect(marked).rejects.toThrow('the host went away');
    expect(await settledWithin(idle, 1_000)).toBe(true);
  });

  it('a read that never answers holds background work back for maxMs only', async () => {
    const hung = deferred<never>();
    inForeground(hung.promise);
    const t0 = Date.now();
    await whenForegroundIdle(60);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(50);
    expect(foregroundActive()).toBe(1);
    hung.resolve(undefined as never);
    await new Promise((r) => setTimeout(r, 150));
    expect(foregroundActive()).toBe(0);
  });

  it('two reads at once: background work waits for both', async () => {
    const a = deferred<number>();
    const b = deferred<number>();
    inForeground(a.promise);
    inForeground(b.promise);
    const idle = whenForegroundIdle(10_000);
    a.resolve(1);
    expect(await settledWithin(idle, 200)).toBe(false);
    b.resolve(2);
    expect(await settledWithin(idle, 1_000)).toBe(true);
  });
});
