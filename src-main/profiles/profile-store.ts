import { join } from 'node:path';
import { z } from 'zod';
import { choicesNewer, sameProfileVersion, SyncedProfile, WorkflowChoices, type ProfileConflict } from '@shared/contracts/profile-store';
import { readJsonFile, writeJsonAtomic } from '../registry/json-store';

const ProfileStoreFile = z
  .object({
    format: z.literal('steward-profile-store/v1'),
    profiles: z.array(SyncedProfile),
    workflow_choices: z.array(WorkflowChoices),
  })
  .strict();
type ProfileStoreFile = z.infer<typeof ProfileStoreFile>;


export interface ProfileSaveResult {
  added: number;
  choices_taken: number;
  conflicts: ProfileConflict[];
}

const key = (p: { id: string; version: number }) => `${p.id}\u0000${p.version}`;

/**
 * The profiles people made or imported in the app, and each workflow's choices of them, in the data
 * folder (`profiles.json`): whichever page, origin or browser profile connects gets them back.
 * Read on every use and written whole, atomically (small: one entry per version). A damaged file
 * throws (RegistryFileError) and is never overwritten: a save would otherwise lose every profile.
 */
export class ProfileStore {
  readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'profiles.json');
  }

  list(): { profiles: SyncedProfile[]; workflow_choices: WorkflowChoices[] } {
    const { profiles, workflow_choices } = this.read();
    return { profiles, workflow_choices };
  }

  private read(): ProfileStoreFile {
    return readJsonFile(this.path, ProfileStoreFile.optional(), undefined) ?? { format: 'steward-profile-store/v1', profiles: [], workflow_choices: [] };
  }

  /** Versions are a union (an existing one never changes); a workflow's choices are the newest written. */
  save(profiles: readonly SyncedProfile[], choices: readonly WorkflowChoices[]): ProfileSaveResult {
    const stored = this.read();
    const byKey = new Map(stored.profiles.map((p) => [key(p.profile), p]));
    const result: ProfileSaveResult = { added: 0, choices_taken: 0, conflicts: [] };
    for (const incoming of profiles) {
      const held = byKey.get(key(incoming.profile));
      if (!held) {
        byKey.set(key(incoming.profile), incoming);
        stored.profiles.push(incoming);
        result.added += 1;
      } else if (!sameProfileVersion(held.profile, incoming.profile)) {
        const { id, version, name } = held.profile;
        result.conflicts.push({
          id,
          version,
          message: `${name} · v${version} is already kept with different settings (saved in another browser); versions never change, so the host kept its own. Duplicate yours to keep it everywhere.`,
        });
      }
    }
    const choiceOf = new Map(stored.workflow_choices.map((c, i) => [c.workflow_id, i]));
    for (const incoming of choices) {
      const at = choiceOf.get(incoming.workflow_id);
      if (at === undefined) {
        choiceOf.set(incoming.workflow_id, stored.workflow_choices.push(incoming) - 1);
      } else if (choicesNewer(incoming, stored.workflow_choices[at])) {
        stored.workflow_choices[at] = incoming;
      } else continue;
      result.choices_taken += 1;
    }
    if (result.added > 0 || result.choices_taken > 0) writeJsonAtomic(this.path, stored);
    return result;
  }
}
