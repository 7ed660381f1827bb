import { BUILTIN_PROFILES } from '@shared/contracts/builtin-profiles';
import type { StewardDb } from './db';
import { createProfile } from './profiles';

/** The shipped profiles (src-shared/contracts/builtin-profiles.ts): read-only, Duplicate to change one. */
export { BUILTIN_PROFILES };

/**
 * First launch (and after an upgrade): adds each built-in profile whose id is not stored yet.
 * Nothing here overwrites a stored version.
 */
export async function seedBuiltinProfiles(db: StewardDb, now = new Date()): Promise<number> {
  return db.transaction('rw', db.profiles, async () => {
    let added = 0;
    for (const { id, profile } of BUILTIN_PROFILES) {
      if ((await db.profiles.where('id').equals(id).count()) > 0) continue;
      await createProfile(db, profile, { id, origin: 'builtin', now });
      added += 1;
    }
    return added;
  });
}
