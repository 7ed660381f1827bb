/**
 * Leaving a screen that holds unsaved work (the editor) waits for the person. Every way between
 * screens is a hash change — a sidebar link, a link on a page, `navigate`, the browser's back and
 * forward — and a hash change cannot be cancelled, only answered: while a guard is set, the app
 * keeps showing the route it had (`shownHash`) and asks the guard; the guard then lets the change
 * through (`proceed`) or takes it back (`stay`, which puts the old address back without a new
 * history entry). One listener for every subscriber, so a change is asked about once.
 */

/** `to`: the hash the person is going to. */
export type LeaveAsk = (to: string) => void;

/** The browser's address, as the guard needs it (window's in the app). */
export interface AddressBar {
  hash(): string;
  /** Puts `hash` in the address without a hashchange or a new history entry. */
  replace(hash: string): void;
  /** Calls `onChange` with the old URL on every hashchange; returns how to stop. */
  listen(onChange: (oldUrl: string) => void): () => void;
}

const hashOf = (url: string) => {
  const at = url.indexOf('#');
  return at < 0 ? '' : url.slice(at);
};

export function createNavigationGuard(address: AddressBar) {
  let ask: LeaveAsk | undefined;
  /** The hash the app keeps showing while a change waits for the guard; undefined: none waits. */
  let held: string | undefined;
  const subscribers = new Set<() => void>();
  let unlisten: (() => void) | undefined;

  const notify = () => {
    for (const s of [...subscribers]) s();
  };
  const onChange = (oldUrl: string) => {
    if (ask) {
      // A second change while the first waits (back pressed twice) keeps the first address to return to.
      if (held === undefined) held = hashOf(oldUrl);
      ask(address.hash());
      return;
    }
    notify();
  };
  const proceed = () => {
    held = undefined;
    notify();
  };

  return {
    /** The hash the app shows: the old one while a change waits for the guard. */
    shownHash: (): string => held ?? address.hash(),
    /** Whether a change waits for the guard's answer. */
    waiting: (): boolean => held !== undefined,
    subscribe(listener: () => void): () => void {
      subscribers.add(listener);
      unlisten ??= address.listen(onChange);
      return () => {
        subscribers.delete(listener);
        if (subscribers.size === 0) {
          unlisten?.();
          unlisten = undefined;
        }
      };
    },
    /** Asks `onLeave` before any route change; the returned function removes that guard. */
    guard(onLeave: LeaveAsk): () => void {
      ask = onLeave;
      return () => {
        if (ask !== onLeave) return;
        ask = undefined;
        // A change still waiting when its guard goes (the screen closed) goes through.
        if (held !== undefined) proceed();
      };
    },
    /** The waiting change goes through: the app shows where the address already is. */
    proceed,
    /** The waiting change is taken back: the address returns to what the app shows. */
    stay(): void {
      if (held === undefined) return;
      const back = held;
      held = undefined;
      address.replace(back);
    },
  };
}

export type NavigationGuard = ReturnType<typeof createNavigationGuard>;

/** The app's one guard, on the window's address. */
export const navigationGuard: NavigationGuard = createNavigationGuard({
  hash: () => window.location.hash,
  replace: (hash) => window.history.replaceState(window.history.state, '', hash === '' ? `${window.location.pathname}${window.location.search}` : hash),
  listen(onChange) {
    const listener = (event: HashChangeEvent) => onChange(event.oldURL);
    window.addEventListener('hashchange', listener);
    return () => window.removeEventListener('hashchange', listener);
  },
});
