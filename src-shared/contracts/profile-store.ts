import { z } from 'zod';
import { canonicalJson } from '../util/canonical-json';
import { Profile, ProfileKind } from './profiles';

/**
 * What the host keeps of the settings a person made in the app (issue 9: they follow to a new
 * origin, browser profile or cleared site data, as runs do). Built-in profiles ship with the app
 * and are not kept. Profiles hold keychain references only (CredentialRef), never a value: the
 * schemas below are checked on both sides, so a value in a reference's place is refused.
 */

/** A profile version a person made or imported. Versions never change: the host keeps the union. */
export const SyncedProfile = z.object({ origin: z.enum(['user', 'imported']), profile: Profile }).strict();
export type SyncedProfile = z.infer<typeof SyncedProfile>;

/** One chosen version (versions are immutable, so a choice is exact). */
export const ProfileChoiceRef = z.object({ id: z.string().min(1).max(80), version: z.number().int().positive() }).strict();

/** A workflow's profile choices and supervision switch; the newest `updated_at` wins. */
export const WorkflowChoices = z
  .object({
    workflow_id: z.string().min(1).max(200),
    profiles: z.partialRecord(ProfileKind, ProfileChoiceRef),
    supervision_enabled: z.boolean(),
    updated_at: z.iso.datetime(),
  })
  .strict();
export type WorkflowChoices = z.infer<typeof WorkflowChoices>;

/** A version the host already holds with other settings: it keeps its own (versions never change). */
export const ProfileConflict = z
  .object({
    id: z.string(),
    version: z.number().int().positive(),
    message: z.string(),
    /** The field refused, as a path into the save's params (`profiles.2.profile.name`); absent for a whole version. */
    field: z.string().optional(),
  })
  .strict();
export type ProfileConflict = z.infer<typeof ProfileConflict>;

/** Records one profiles.save carries at most (a WebSocket message stays well under 1 MB). */
export const MAX_SYNCED_RECORDS = 500;

/** Two versions are the same when everything but the moment each was stored matches (as a profile import judges). */
export function sameProfileVersion(a: Profile, b: Profile): boolean {
  const { created_at: _a, ...restA } = a;
  const { created_at: _b, ...restB } = b;
  return canonicalJson(restA) === canonicalJson(restB);
}

/** Whether `next` replaces `current`: strictly newer wins, so a repeated save changes nothing. */
export function choicesNewer(next: Pick<WorkflowChoices, 'updated_at'>, current: Pick<WorkflowChoices, 'updated_at'> | undefined): boolean {
  return current === undefined || Date.parse(next.updated_at) > Date.parse(current.updated_at);
}
