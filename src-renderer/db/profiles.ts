import Dexie from 'dexie';
import { Profile, PROFILE_KIND_LABELS, type ProfileKind, type ProfileVersionRef } from '@shared/contracts/profiles';
import { canonicalJson } from '@shared/util/canonical-json';
import { isBuiltinProfileId, profileNameKey } from '@shared/contracts/builtin-profiles';
import type { ProfileChoice, ProfileOrigin, ProfileRow, StewardDb } from './db';

/**
 * Profiles in the database. A version never changes once stored: editing saves version n+1 under
 * the same id, so a run that recorded "Risk-gated (default) v1" can always be read back exactly.
 */

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type ProfileOf<K extends ProfileKind> = Extract<Profile, { kind: K }>;
/** A profile's settings: everything but its identity (kind + the kind's settings field). */
export type ProfileSettings = DistributiveOmit<Profile, 'id' | 'name' | 'version' | 'created_at' | 'description'>;
export type ProfileInput = DistributiveOmit<Profile, 'id' | 'version' | 'created_at'>;

export function profileLabel(p: Pick<Profile, 'name' | 'version'>): string {
  return `${p.name} · v${p.version}`;
}

export function refOf(p: Pick<Profile, 'id' | 'name' | 'version'>): ProfileVersionRef {
  return { id: p.id, name: p.name, version: p.version };
}

/** The profile as the contract has it (without the app's `origin`): what exports and runs see. */
export function toProfile(row: ProfileRow): Profile {
  const { origin: _origin, ...profile } = row;
  return Profile.parse(profile);
}

/** Settings only, canonically: two profiles with the same text here behave the same. */
export function settingsKey(p: ProfileSettings | ProfileInput | Profile | ProfileRow): string {
  return canonicalJson(settingsOf(p as Profile));
}

export function settingsOf(p: Profile | ProfileRow): ProfileSettings {
  const { id: _i, name: _n, version: _v, created_at: _c, description: _d, ...settings } = p;
  if ('origin' in settings) delete (settings as { origin?: unknown }).origin;
  return settings as ProfileSettings;
}

export function getProfile(db: StewardDb, choice: ProfileChoice): Promise<ProfileRow | undefined> {
  return db.profiles.get([choice.id, choice.version]);
}

export async function latestVersion(db: StewardDb, id: string): Promise<ProfileRow | undefined> {
  const versions = await db.profiles.where('[id+version]').between([id, Dexie.minKey], [id, Dexie.maxKey]).toArray();
  return versions.at(-1);
}

/** The newest version of every profile, by kind then name. */
export function latestOfEach(rows: readonly ProfileRow[]): ProfileRow[] {
  const latest = new Map<string, ProfileRow>();
  for (const row of rows) {
    const seen = latest.get(row.id);
    if (!seen || seen.version < row.version) latest.set(row.id, row);
  }
  return [...latest.values()].sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
}

function slug(name: string): string {
  const s = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return s || 'profile';
}

export function newProfileId(name: string): string {
  return `${slug(name)}-${crypto.randomUUID().slice(0, 8)}`;
}

/** Why a profile is not valid, as a person reads it: `supervision.takeover_rounds: Too big…`. */
export class InvalidProfileError extends Error {
  constructor(readonly issues: string[]) {
    super(issues.join('; '));
    this.name = 'InvalidProfileError';
  }
}

/** Checked against the contract before it is stored: the database never holds an invalid profile. */
function checked(value: unknown, origin: ProfileOrigin): ProfileRow {
  const parsed = Profile.safeParse(value);
  if (!parsed.success) throw new InvalidProfileError(parsed.error.issues.map((i) => `${i.path.join('.') || 'profile'}: ${i.message}`));
  return { ...parsed.data, origin };
}

/** A built-in profile is read-only: a person duplicates it to change it (issue 10). */
export class ReadOnlyProfileError extends Error {
  constructor(name: string) {
    super(`${name} is a built-in profile and read-only — duplicate it to change it`);
    this.name = 'ReadOnlyProfileError';
  }
}

export function isReadOnlyProfile(row: Pick<ProfileRow, 'id' | 'origin'>): boolean {
  return row.origin === 'builtin' || isBuiltinProfileId(row.id);
}

/** Another profile of the same kind (its newest version) already has this name, as a person reads names. */
export function nameTakenBy(rows: readonly ProfileRow[], kind: ProfileKind, name: string, exceptId?: string): ProfileRow | undefined {
  const wanted = profileNameKey(name);
  return latestOfEach(rows.filter((r) => r.kind === kind)).find((r) => r.id !== exceptId && profileNameKey(r.name) === wanted);
}

/** Why a name cannot be used, as the page shows it; undefined when it can. */
export function nameProblem(rows: readonly ProfileRow[], kind: ProfileKind, name: string, exceptId?: string): string | undefined {
  const other = nameTakenBy(rows, kind, name, exceptId);
  return other && `Name: another ${PROFILE_KIND_LABELS[kind].toLowerCase()} profile is already called “${other.name}” — names are unique per kind, choose another`;
}

export class DuplicateProfileNameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DuplicateProfileNameError';
  }
}

/** `name`, or `name (2)`, `name (3)`… — the first no other profile of the kind has. */
export function uniqueProfileName(rows: readonly ProfileRow[], kind: ProfileKind, name: string, exceptId?: string): string {
  if (!nameTakenBy(rows, kind, name, exceptId)) return name;
  for (let n = 2; ; n += 1) {
    const candidate = `${name} (${n})`;
    if (!nameTakenBy(rows, kind, candidate, exceptId)) return candidate;
  }
}

async function refuseTakenName(db: StewardDb, kind: ProfileKind, name: string, exceptId?: string): Promise<void> {
  const problem = nameProblem(await db.profiles.where('kind').equals(kind).toArray(), kind, name, exceptId);
  if (problem) throw new DuplicateProfileNameError(problem);
}

/** A new profile (version 1). Its name must be free within its kind (built-ins ship with theirs). */
export async function createProfile(db: StewardDb, input: ProfileInput, options: { id?: string; origin?: ProfileOrigin; now?: Date } = {}): Promise<ProfileRow> {
  const row = checked({ ...input, id: options.id ?? newProfileId(input.name), version: 1, created_at: (options.now ?? new Date()).toISOString() }, options.origin ?? 'user');
  if (row.origin === 'builtin') {
    await db.profiles.add(row);
    return row;
  }
  return db.transaction('rw', db.profiles, async () => {
    await refuseTakenName(db, row.kind, row.name);
    await db.profiles.add(row);
    return row;
  });
}

/** A new profile named `name`, or the first free `name (n)`: for profiles the app makes on a person's behalf. */
export async function createProfileNamedFreely(db: StewardDb, input: ProfileInput): Promise<ProfileRow> {
  return db.transaction('rw', db.profiles, async () => {
    const name = uniqueProfileName(await db.profiles.where('kind').equals(input.kind).toArray(), input.kind, input.name);
    // Free by construction, inside this transaction: no second look needed.
    const row = checked({ ...input, name, id: newProfileId(name), version: 1, created_at: new Date().toISOString() }, 'user');
    await db.profiles.add(row);
    return row;
  });
}

/**
 * A profile the app derives from what a workflow file says (its models, supervision, phase). Its id
 * comes from `key` rather than chance, so two browsers deriving it at once make the same profile and
 * the host keeps one; when the id is here already (from the host, or derived before), that is it.
 */
export async function deriveProfileOnce(db: StewardDb, key: string, input: ProfileInput): Promise<ProfileRow> {
  const id = `${slug(input.name)}-${fnv1a(key)}`;
  return db.transaction('rw', db.profiles, async () => {
    const kept = await latestVersion(db, id);
    if (kept) return kept;
    const name = uniqueProfileName(await db.profiles.where('kind').equals(input.kind).toArray(), input.kind, input.name);
    const row = checked({ ...input, name, id, version: 1, created_at: new Date().toISOString() }, 'user');
    await db.profiles.add(row);
    return row;
  });
}

/** 32-bit FNV-1a as 8 hex digits: a short, stable id suffix (not a secret, not a checksum). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/**
 * Saves an edit as the next version of `base`'s profile. The version number is taken inside the
 * transaction, so two saves never claim the same one; `base` itself is left exactly as it was.
 */
export async function saveNewVersion(
  db: StewardDb,
  base: Pick<Profile, 'id' | 'kind'>,
  next: ProfileInput,
  now = new Date(),
): Promise<ProfileRow> {
  if (next.kind !== base.kind) throw new Error(`a ${PROFILE_KIND_LABELS[base.kind]} profile cannot become a ${PROFILE_KIND_LABELS[next.kind]} profile`);
  return db.transaction('rw', db.profiles, async () => {
    const latest = await latestVersion(db, base.id);
    if (!latest) throw new Error(`no profile ${base.id} to save a new version of`);
    if (isReadOnlyProfile(latest)) throw new ReadOnlyProfileError(latest.name);
    await refuseTakenName(db, next.kind, next.name, base.id);
    const row = checked({ ...next, id: base.id, version: latest.version + 1, created_at: now.toISOString() }, latest.origin);
    await db.profiles.add(row);
    return row;
  });
}

/**
 * An edit made in a workflow's panel: the next version of the profile, or — a built-in being
 * read-only — a copy of it with the edit (named freely), which the workflow then uses.
 */
export async function saveEdit(db: StewardDb, base: ProfileRow, next: ProfileInput, now = new Date()): Promise<ProfileRow> {
  if (!isReadOnlyProfile(base)) return saveNewVersion(db, base, next, now);
  if (next.kind !== base.kind) throw new Error(`a ${PROFILE_KIND_LABELS[base.kind]} profile cannot become a ${PROFILE_KIND_LABELS[next.kind]} profile`);
  const name = profileNameKey(next.name) === profileNameKey(base.name) ? `${base.name} (copy)` : next.name;
  return createProfileNamedFreely(db, { ...next, name } as ProfileInput);
}

/** A copy under a new id and name, as version 1. */
export function duplicateProfile(db: StewardDb, source: Profile, name: string): Promise<ProfileRow> {
  const input = { ...settingsOf(source), name, description: source.description } as ProfileInput;
  return createProfile(db, input);
}

/** Whether two profile values differ in anything a person could have edited. */
export function profileChanged(a: ProfileInput | Profile | ProfileRow, b: ProfileInput | Profile | ProfileRow): boolean {
  return settingsKey(a) !== settingsKey(b) || a.name !== b.name || (a.description ?? '') !== (b.description ?? '');
}
