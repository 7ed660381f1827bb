import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { reviewedRun, runEvents } from '../../test-support/promotion-runs';
import { EventJournal } from '../events/event-journal';
import { historyPath } from '../events/history-db';
import { createHost } from './create-host';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

/** Where the history's fold stands and where its events end, read as another process would (read-only). */
function foldState(file: string): { folded: number; head: number } {
  const db = new Database(file, { readonly: true });
  try {
    const folded = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'folded'").get();
    const head = db.prepare<[], { pos: number | null }>('SELECT max(pos) AS pos FROM events').get();
    return { folded: Number(folded?.value ?? 0), head: head?.pos ?? 0 };
  } finally {
    db.close();
  }
}

describe('the host keeps its promotion figures and learning examples current by itself', () => {
  it('a history nothing has folded (an upgraded data folder) is folded once the host is up and nobody asks, before any card or Learning screen does', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-background-fold-host-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const file = historyPath(dataDir);
    const writer = EventJournal.open(file, { log: () => undefined });
    for (let i = 0; i < 30; i += 1) writer.append(runEvents(reviewedRun(i, 5), i));
    writer.close();
    expect(foldState(file).folded).toBe(0);

    const host = await createHost({ dataDir, shell: 'browser', cliChannel: false, log: () => undefined });
    cleanups.push(() => host.close());
    // A page asking (its runs list, every 300 ms) comes first: nothing is folded past the host's first 3 s meanwhile.
    const session = { id: 'page', push: () => undefined };
    for (let i = 0; i < 15; i += 1) {
      const answer = await host.handle({ kind: 'request', id: i + 1, method: 'runs.list', params: {} }, session);
      expect(answer.ok).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(foldState(file).folded).toBe(0);
    // Nobody asking: the host folds on its own, a few seconds later.
    await vi.waitFor(() => {
      const { folded, head } = foldState(file);
      expect(head).toBeGreaterThan(0);
      expect(folded).toBe(head);
    }, { timeout: 15_000, interval: 200 });
  }, 30_000);
});
