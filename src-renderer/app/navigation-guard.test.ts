import { describe, expect, it } from 'vitest';
import { createNavigationGuard, type AddressBar } from './navigation-guard';

/** The address bar as the browser keeps it: a hash, hashchange listeners, replaceState. */
function addressBar(start: string) {
  let hash = start;
  const listeners = new Set<(oldUrl: string) => void>();
  const bar: AddressBar = {
    hash: () => hash,
    replace: (next) => {
      hash = next;
    },
    listen(onChange) {
      listeners.add(onChange);
      return () => listeners.delete(onChange);
    },
  };
  /** A link clicked, back pressed, or `location.hash` set: the hash changes, then hashchange fires. */
  const go = (next: string) => {
    const old = `http://127.0.0.1/${hash}`;
    hash = next;
    for (const l of [...listeners]) l(old);
  };
  return { bar, go, listeners, now: () => hash };
}

describe('leaving a screen that holds unsaved work', () => {
  it('with no guard, every change of address shows at once', () => {
    const a = addressBar('#/workflows/w/edit');
    const guard = createNavigationGuard(a.bar);
    let shown = 0;
    guard.subscribe(() => shown++);
    a.go('#/runs');
    expect(guard.shownHash()).toBe('#/runs');
    expect(shown).toBe(1);
  });

  it('a guarded change keeps the old screen shown and asks once, whatever the number of subscribers', () => {
    const a = addressBar('#/workflows/w/edit');
    const guard = createNavigationGuard(a.bar);
    let shown = 0;
    guard.subscribe(() => shown++);
    guard.subscribe(() => shown++);
    const asked: string[] = [];
    guard.guard((to) => asked.push(to));
    a.go('#/runs');
    expect(asked).toEqual(['#/runs']);
    expect(guard.shownHash()).toBe('#/workflows/w/edit');
    expect(guard.waiting()).toBe(true);
    expect(shown).toBe(0);
  });

  it('Keep editing puts the old address back without a new change; going on shows where the person went', () => {
    const a = addressBar('#/workflows/w/edit');
    const guard = createNavigationGuard(a.bar);
    guard.subscribe(() => undefined);
    guard.guard(() => undefined);
    a.go('#/runs');
    guard.stay();
    expect(a.now()).toBe('#/workflows/w/edit');
    expect(guard.shownHash()).toBe('#/workflows/w/edit');
    expect(guard.waiting()).toBe(false);

    a.go('#/settings');
    guard.proceed();
    expect(guard.shownHash()).toBe('#/settings');
  });

  it('back pressed twice while asked still returns to the screen the person was on', () => {
    const a = addressBar('#/workflows/w/edit');
    const guard = createNavigationGuard(a.bar);
    guard.subscribe(() => undefined);
    const asked: string[] = [];
    guard.guard((to) => asked.push(to));
    a.go('#/workflows');
    a.go('#/runs');
    expect(asked).toEqual(['#/workflows', '#/runs']);
    guard.stay();
    expect(a.now()).toBe('#/workflows/w/edit');
  });

  it('a guard removed while a change waits (its screen closed) lets the change through; removing a replaced guard leaves the new one', () => {
    const a = addressBar('#/workflows/w/edit');
    const guard = createNavigationGuard(a.bar);
    guard.subscribe(() => undefined);
    const first = guard.guard(() => undefined);
    a.go('#/runs');
    first();
    expect(guard.shownHash()).toBe('#/runs');

    const asked: string[] = [];
    const old = guard.guard(() => undefined);
    guard.guard((to) => asked.push(to));
    old();
    a.go('#/learning');
    expect(asked).toEqual(['#/learning']);
  });

  it('listens to the address only while someone shows the route', () => {
    const a = addressBar('#/');
    const guard = createNavigationGuard(a.bar);
    const stop = guard.subscribe(() => undefined);
    expect(a.listeners.size).toBe(1);
    stop();
    expect(a.listeners.size).toBe(0);
  });
});
