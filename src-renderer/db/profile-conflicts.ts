import { sameProfileVersion, type SyncedProfile } from '@shared/contracts/profile-store';
import type { Profile } from '@shared/contracts/profiles';
import type { ProfileRow, StewardDb } from './db';
import { toProfile } from './profiles';

/**
 * Profile conflicts (issue 9): two browsers (or two windows of different origins) each saved the same version of a
 * profile with different settings — both made "v2" of it before they met at the host. Versions never change and the
 * host keeps the first it was sent (profile-store.ts), so profile-sync.ts only reports the difference. Here a person
 * sees both versions and chooses: keep theirs (this browser takes the host's version) or keep mine (the host's stays
 * that version number everywhere, and mine is saved as the next version, which this browser's workflows then use
 * and the sync carries to every page).
 */
export interface ProfileConflictPair {
  mine: ProfileRow;
  theirs: SyncedProfile;
}

/** The versions held here and on the host with different settings (the host's list from profiles.list). */
export async function findProfileConflicts(db: StewardDb, host: readonly SyncedProfile[]): Promise<ProfileConflictPair[]> {
  const here = await db.profiles.bulkGet(host.map((p) => [p.profile.id, p.profile.version] as [string, number]));
  return host.flatMap((theirs, i) => {
    const mine = here[i];
    return mine && !sameProfileVersion(toProfile(mine), theirs.profile) ? [{ mine, theirs }] : [];
  });
}

/** This browser takes the host's version in place of its own. */
export async function keepTheirs(db: StewardDb, pair: ProfileConflictPair): Promise<void> {
  await db.profiles.put({ ...pair.theirs.profile, origin: pair.theirs.origin });
}

/**
 * Mine is saved as the next version (after every version either side holds), the conflicting number takes the
 * host's content, and the workflows here that chose the conflicting version choose mine (their choice newer, so it
 * follows to the host too). Returns the new version.
 */
export async function keepMine(db: StewardDb, pair: ProfileConflictPair, hostVersions: readonly Pick<Profile, 'id' | 'version'>[], now = new Date()): Promise<ProfileRow> {
  const { id, version } = pair.mine;
  return db.transaction('rw', db.profiles, db.workflows, async () => {
    const held = await db.profiles.where('id').equals(id).toArray();
    const next = Math.max(0, ...held.map((r) => r.version), ...hostVersions.filter((p) => p.id === id).map((p) => p.version)) + 1;
    const row: ProfileRow = { ...pair.mine, version: next, created_at: now.toISOString() };
    await db.profiles.add(row);
    await db.profiles.put({ ...pair.theirs.profile, origin: pair.theirs.origin });
    const at = now.toISOString();
    await db.workflows.toCollection().modify((w) => {
      const profiles = w.profiles;
      const kind = pair.mine.kind;
      const choice = profiles?.[kind];
      if (!profiles || choice?.id !== id || choice.version !== version) return;
      w.profiles = { ...profiles, [kind]: { id, version: next } };
      w.choices_at = at;
    });
    return row;
  });
}
