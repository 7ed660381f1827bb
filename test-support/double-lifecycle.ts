import type { Server } from 'node:http';

/**
 * What every model-boundary test double needs besides its API: delays that close() releases at
 * once (no answer left hanging), and a way for a test to wait until N chat calls have arrived.
 */
export class DoubleLifecycle {
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private readonly waiters: { count: number; resolve: () => void }[] = [];

  /** `chatCount` says how many chat calls the double has received so far. */
  constructor(private readonly chatCount: () => number) {}

  sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.set(t, resolve);
    });
  }

  /** Call after recording a chat request: wakes the tests waiting for that many. */
  notifyChat(): void {
    const count = this.chatCount();
    for (const w of [...this.waiters]) {
      if (count >= w.count) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  waitForChat(count = 1): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ count, resolve });
      this.notifyChat();
    });
  }

  close(server: Server): Promise<void> {
    return new Promise((resolve) => {
      server.closeAllConnections();
      for (const [t, release] of this.timers) {
        clearTimeout(t);
        release();
      }
      this.timers.clear();
      server.close(() => resolve());
    });
  }
}
