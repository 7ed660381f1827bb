import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HostClient } from '../host/host-client';
import { StewardDb } from './db';
import { createProfile } from './profiles';
import { createProfileSync } from './profile-sync';

const dbs: StewardDb[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.delete();
});

/** A host that keeps what it is sent (the host's own store is tested in src-main/profiles). */
function keepingHost() {
  const saved: unknown[] = [];
  const request = (async (method: string, params: { profiles?: unknown[] }) => {
    if (method === 'profiles.list') return { profiles: [], workflow_choices: [] };
    saved.push(...(params.profiles ?? []));
    return { added: params.profiles?.length ?? 0, choices_taken: 0, conflicts: [] };
  }) as HostClient['request'];
  return { saved, client: { request } };
}

describe('profile sync', () => {
  it('a clean exchange after a change says nothing: it never clears a problem the page is showing', async () => {
    const db = new StewardDb(`steward-profile-sync-${Math.random().toString(36).slice(2)}`);
    dbs.push(db);
    await db.open();
    const { saved, client } = keepingHost();
    const reports: Array<string | undefined> = [];
    const sync = createProfileSync(db, client, (p) => reports.push(p));
    expect(await sync.connect()).toBeUndefined();
    await createProfile(db, { kind: 'student', name: 'Replay student', description: '', model: { provider: 'script' } });
    await vi.waitFor(() => expect(saved).toHaveLength(1), { timeout: 10_000 });
    await sync.idle();
    expect(reports).toEqual([]);
    sync.stop();
  });
});
