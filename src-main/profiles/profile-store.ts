import { join } from 'node:path';
import { z } from 'zod';
import { choicesNewer, DeletedProfile, sameProfileVersion, SyncedProfile, WorkflowChoices, type ProfileConflict, type ProfileDeleteResult, type ProfileUsers } from '@shared/contracts/profile-store';
import { BUILTIN_PROFILES, isBuiltinProfileId, profileNameKey } from '@shared/contracts/builtin-profiles';
import { PROFILE_KIND_LABELS, PROFILE_KINDS, type Profile } from '@shared/contracts/profiles';
import { readJsonFile, writeJsonAtomic } from '../registry/json-store';
import { RequestError } from '../registry/request-error';

const ProfileStoreFile = z
  .object({
    format: z.literal('steward-profile-store/v1'),
    profiles: z.array(SyncedProfile),
    workflow_choices: z.array(WorkflowChoices),
    /** Profiles a person deleted (absent in a file written before issue 28). */
    deleted: z.array(DeletedProfile).optional(),
  })
  .strict();
type ProfileStoreFile = z.infer<typeof ProfileStoreFile>;


export interface ProfileSaveResult {
  added: number;
  choices_taken: number;
  conflicts: ProfileConflict[];
}

const key = (p: { id: string; version: number }) => `${p.id}\u0000${p.version}`;

/** Deleted ids kept at most (the oldest go first): enough for any page that was away a long while. */
const MAX_DELETED = 1_000;

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

  list(): { profiles: SyncedProfile[]; workflow_choices: WorkflowChoices[]; deleted: DeletedProfile[] } {
    const { profiles, workflow_choices, deleted = [] } = this.read();
    return { profiles, workflow_choices, deleted };
  }

  /**
   * Deletes every version of `id` and keeps its id as deleted (a page that still holds it drops it;
   * a save of it is ignored). Refused for a built-in, and while a workflow's choices here or a run's
   * record in the history (`runsUsing`) name it: the answer says who (`workflowName` names them).
   */
  delete(id: string, runsUsing: (id: string) => Pick<ProfileUsers, 'runs' | 'run_count'>, workflowName: (id: string) => string | undefined, now = new Date()): ProfileDeleteResult {
    if (isBuiltinProfileId(id)) return { deleted: false, reason: 'built_in' };
    const stored = this.read();
    const workflows = stored.workflow_choices.flatMap((c) => {
      const kinds = PROFILE_KINDS.filter((k) => c.profiles[k]?.id === id || (k === 'deployment' && Object.values(c.nodes ?? {}).some((n) => n.deployment.id === id)));
      return kinds.length > 0 ? [{ id: c.workflow_id, name: workflowName(c.workflow_id) ?? c.workflow_id, kinds }] : [];
    });
    const runs = runsUsing(id);
    if (workflows.length > 0 || runs.run_count > 0) return { deleted: false, reason: 'in_use', used_by: { workflows, ...runs } };
    const kept = stored.profiles.filter((p) => p.profile.id !== id);
    const versions = stored.profiles.length - kept.length;
    const deleted = [...(stored.deleted ?? []).filter((d) => d.id !== id), { id, deleted_at: now.toISOString() }].slice(-MAX_DELETED);
    writeJsonAtomic(this.path, { ...stored, profiles: kept, deleted });
    return { deleted: true, versions };
  }

  private read(): ProfileStoreFile {
    return readJsonFile(this.path, ProfileStoreFile.optional(), undefined) ?? { format: 'steward-profile-store/v1', profiles: [], workflow_choices: [] };
  }

  /** Versions are a union (an existing one never changes); a workflow's choices are the newest written. */
  save(profiles: readonly SyncedProfile[], choices: readonly WorkflowChoices[]): ProfileSaveResult {
    refuseBuiltinIds(profiles);
    const stored = this.read();
    // A deleted profile stays deleted: a page that had not heard of it yet is told on its next exchange.
    const gone = new Set((stored.deleted ?? []).map((d) => d.id));
    const byKey = new Map(stored.profiles.map((p) => [key(p.profile), p]));
    const names = NameIndex.of(stored.profiles.map((p) => p.profile));
    const result: ProfileSaveResult = { added: 0, choices_taken: 0, conflicts: [] };
    for (const [index, incoming] of profiles.entries()) {
      if (gone.has(incoming.profile.id)) continue;
      const held = byKey.get(key(incoming.profile));
      if (!held) {
        const clash = names.clash(incoming.profile);
        if (clash) {
          result.conflicts.push({ id: incoming.profile.id, version: incoming.profile.version, field: `profiles.${index}.profile.name`, message: clash });
          continue;
        }
        names.add(incoming.profile);
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
        // A save that says nothing of the nodes' choices (a page's workflow row has none) keeps those held.
        const heldNodes = stored.workflow_choices[at]?.nodes;
        stored.workflow_choices[at] = incoming.nodes === undefined && heldNodes !== undefined ? { ...incoming, nodes: heldNodes } : incoming;
      } else continue;
      result.choices_taken += 1;
    }
    if (result.added > 0 || result.choices_taken > 0) writeJsonAtomic(this.path, stored);
    return result;
  }
}

/** Built-in profiles are read-only (issue 10): no version is ever saved under a shipped id. The page never sends one. */
function refuseBuiltinIds(profiles: readonly SyncedProfile[]): void {
  const at = profiles.findIndex((p) => isBuiltinProfileId(p.profile.id));
  if (at < 0) return;
  const { id, name } = profiles[at]!.profile;
  throw new RequestError(
    'invalid_params',
    `profiles.${at}.profile.id: "${id}" is the built-in profile ${name}, which is read-only — duplicate it to change it (the copy gets an id of its own)`,
  );
}

/**
 * Each profile's current name (its newest version's), per kind, built-ins included: a name is one
 * profile's within its kind, so a picker never shows two "Fast student"s. An older version arriving
 * late does not rename anything, so only a version newer than the one kept is checked.
 */
class NameIndex {
  private readonly newest = new Map<string, { version: number; kind: Profile['kind']; name: string }>();

  static of(kept: readonly Profile[]): NameIndex {
    const index = new NameIndex();
    for (const { id, profile } of BUILTIN_PROFILES) index.newest.set(id, { version: Number.MAX_SAFE_INTEGER, kind: profile.kind, name: profile.name });
    for (const p of kept) index.add(p);
    return index;
  }

  add(p: Profile): void {
    const seen = this.newest.get(p.id);
    if (!seen || seen.version < p.version) this.newest.set(p.id, { version: p.version, kind: p.kind, name: p.name });
  }

  /** Why `p` may not be kept under its name, or undefined when it may. */
  clash(p: Profile): string | undefined {
    const seen = this.newest.get(p.id);
    if (seen && seen.version > p.version) return undefined;
    const wanted = profileNameKey(p.name);
    for (const [id, other] of this.newest) {
      if (id === p.id || other.kind !== p.kind || profileNameKey(other.name) !== wanted) continue;
      const kind = PROFILE_KIND_LABELS[p.kind].toLowerCase();
      return `name: another ${kind} profile is already called "${other.name}" (${id}); names are unique per kind, so ${p.name} · v${p.version} was not kept — rename it and save again.`;
    }
    return undefined;
  }
}
