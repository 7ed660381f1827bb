import { PROFILE_KINDS, PROFILE_KIND_LABELS, type ProfileKind } from '@shared/contracts/profiles';
import type { ProfileUsers } from '@shared/contracts/profile-store';
import type { HostClient } from '../host/host-client';
import type { ProfileRow, StewardDb } from './db';
import { isReadOnlyProfile } from './profiles';
import { plural } from '../view/format';

/** What deleting a profile came to, as the Profiles section shows it. */
export type ProfileDeleteOutcome =
  | { deleted: true; text: string }
  | { deleted: false; text: string; usedBy?: ProfileUsers };

type Client = Pick<HostClient, 'request'>;

/** The workflows of this page whose choices name profile `id` (a choice made here the host may not have yet). */
async function usedHere(db: StewardDb, id: string): Promise<ProfileUsers['workflows']> {
  return (await db.workflows.toArray()).flatMap((w) => {
    const kinds = PROFILE_KINDS.filter((k) => w.profiles?.[k]?.id === id);
    return kinds.length > 0 ? [{ id: w.id, name: w.name, kinds }] : [];
  });
}

const kindsText = (kinds: readonly ProfileKind[]) => kinds.map((k) => PROFILE_KIND_LABELS[k].toLowerCase()).join(' and ');

/** Why a profile in use was not deleted, and what to do, as sentences (the runs are listed by the caller). */
export function inUseText(name: string, users: ProfileUsers): string {
  const parts: string[] = [];
  if (users.workflows.length > 0) parts.push(`${users.workflows.length === 1 ? 'the workflow' : 'the workflows'} ${users.workflows.map((w) => `“${w.name}” (as its ${kindsText(w.kinds)})`).join(', ')}`);
  if (users.run_count > 0) parts.push(plural(users.run_count, 'run'));
  const todo = [
    users.workflows.length > 0 ? 'choose another profile in those workflows’ settings' : '',
    users.run_count > 0 ? `delete ${users.run_count === 1 ? 'that run' : 'those runs'} in Runs (a run keeps the profile versions it used)` : '',
  ].filter(Boolean);
  return `“${name}” was not deleted: ${parts.join(' and ')} still ${users.workflows.length + users.run_count === 1 ? 'uses' : 'use'} it. To delete it, ${todo.join(', and ')}.`;
}

/**
 * Deletes a profile the person made or imported, every version of it: refused (saying who) while a
 * workflow here or on the host, or a run in the history, uses it. Deleted on the host first, which
 * keeps its id so no other page brings it back; then here. A built-in is never deleted.
 */
export async function deleteProfile(db: StewardDb, client: Client, row: ProfileRow): Promise<ProfileDeleteOutcome> {
  if (isReadOnlyProfile(row)) return { deleted: false, text: `${row.name} is a built-in profile: it ships with Steward and cannot be deleted.` };
  const here = await usedHere(db, row.id);
  if (here.length > 0) {
    const usedBy = { workflows: here, runs: [], run_count: 0 };
    return { deleted: false, text: inUseText(row.name, usedBy), usedBy };
  }
  let outcome;
  try {
    outcome = await client.request('profiles.delete', { id: row.id });
  } catch (err) {
    return { deleted: false, text: `“${row.name}” was not deleted: the Steward host could not be asked (${err instanceof Error ? err.message : String(err)}). Try again once the page is connected.` };
  }
  if (!outcome.deleted) {
    if (outcome.reason === 'built_in') return { deleted: false, text: `${row.name} is a built-in profile: it ships with Steward and cannot be deleted.` };
    // The host names workflows by id when it does not store them (the demos): this page knows their names.
    const names = new Map((await db.workflows.toArray()).map((w) => [w.id, w.name]));
    const usedBy = { ...outcome.used_by, workflows: outcome.used_by.workflows.map((w) => ({ ...w, name: w.name === w.id ? (names.get(w.id) ?? w.name) : w.name })) };
    return { deleted: false, text: inUseText(row.name, usedBy), usedBy };
  }
  const versions = await db.profiles.where('id').equals(row.id).count();
  await db.profiles.where('id').equals(row.id).delete();
  return { deleted: true, text: `Deleted “${row.name}” (${plural(Math.max(versions, outcome.versions), 'version')}).` };
}
