import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SyncedProfile } from '@shared/contracts/profile-store';
import { StewardDb } from './db';
import { createProfile, saveNewVersion, toProfile } from './profiles';
import { findProfileConflicts, keepMine, keepTheirs } from './profile-conflicts';

// Two browsers each saved v2 of the same profile before meeting at the host: the person sees both and keeps one.
let db: StewardDb;
beforeEach(async () => {
  db = new StewardDb(`steward-profile-conflicts-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

async function conflictOfV2() {
  const v1 = await createProfile(db, { kind: 'student', name: 'Local student', description: '', model: { provider: 'ollama', model: 'qwen3:4b', mode: 'structured', timeout_ms: 120_000 } });
  const mine = await saveNewVersion(db, v1, { kind: 'student', name: 'Local student', description: '', model: { provider: 'ollama', model: 'qwen3:8b', mode: 'structured', timeout_ms: 120_000 } });
  // As the host sends it: parsed by the contract (its defaults filled in).
  const theirs: SyncedProfile = SyncedProfile.parse({ origin: 'user', profile: { ...toProfile(mine), model: { provider: 'ollama', model: 'llama3.2:3b' }, created_at: '2026-12-01T10:00:00.000Z' } });
  const host: SyncedProfile[] = [{ origin: 'user', profile: toProfile(v1) }, theirs];
  await db.workflows.put({ id: 'notes', name: 'Notes', doc: {} as never, supervision_enabled: true, profiles: { student: { id: v1.id, version: 2 } }, choices_at: '2026-12-01T09:00:00.000Z', source: 'user', updated_at: '2026-12-01T09:00:00.000Z' });
  return { v1, mine, theirs, host };
}

describe('profile conflicts', () => {
  it('a version held here and on the host with other settings is a conflict; the same version with the same settings is not', async () => {
    const { v1, mine, theirs, host } = await conflictOfV2();
    const pairs = await findProfileConflicts(db, host);
    expect(pairs).toHaveLength(1);
    expect(pairs[0]!.mine).toEqual(mine);
    expect(pairs[0]!.theirs).toEqual(theirs);
    expect(await findProfileConflicts(db, [{ origin: 'user', profile: toProfile(v1) }])).toEqual([]);
  });

  it('keep theirs: this browser takes the host’s version, and the conflict is gone', async () => {
    const { v1, theirs, host } = await conflictOfV2();
    const [pair] = await findProfileConflicts(db, host);
    await keepTheirs(db, pair!);
    expect(toProfile((await db.profiles.get([v1.id, 2]))!)).toEqual(theirs.profile);
    expect(await findProfileConflicts(db, host)).toEqual([]);
  });

  it('keep mine: mine becomes the next version after both sides’, v2 means theirs everywhere, and the workflow that chose v2 chooses mine (newer choice)', async () => {
    const { v1, mine, theirs, host } = await conflictOfV2();
    const [pair] = await findProfileConflicts(db, host);
    // The host also holds a v3 this browser has not pulled yet: mine goes after it.
    const hostV3 = { ...theirs.profile, version: 3 };
    const saved = await keepMine(db, pair!, [...host.map((p) => p.profile), hostV3], new Date('2026-12-01T11:00:00.000Z'));
    expect(saved.version).toBe(4);
    expect(toProfile(saved)).toEqual({ ...toProfile(mine), version: 4, created_at: '2026-12-01T11:00:00.000Z' });
    expect(toProfile((await db.profiles.get([v1.id, 2]))!)).toEqual(theirs.profile);
    const workflow = await db.workflows.get('notes');
    expect(workflow?.profiles?.student).toEqual({ id: v1.id, version: 4 });
    expect(workflow?.choices_at).toBe('2026-12-01T11:00:00.000Z');
    expect(await findProfileConflicts(db, host)).toEqual([]);
  });
});
