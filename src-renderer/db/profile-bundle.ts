import type { z } from 'zod';
import { PROFILE_KIND_LABELS, ProfileBundle, type Profile, type ProfileVersionRef } from '@shared/contracts/profiles';
import { canonicalJson } from '@shared/util/canonical-json';
import { isBuiltinProfileId } from '@shared/contracts/builtin-profiles';
import type { StewardDb } from './db';
import { isReadOnlyProfile, nameTakenBy, profileLabel, refOf, toProfile } from './profiles';

/**
 * Every stored profile version, as a file another Steward can import. Credentials stay references.
 * Built-in profiles ship with every Steward and are read-only, so they stay out.
 */
export async function exportBundle(db: StewardDb, now = new Date()): Promise<ProfileBundle> {
  const rows = (await db.profiles.toArray()).filter((r) => !isReadOnlyProfile(r));
  return ProfileBundle.parse({ format: 'steward-profiles/v1', exported_at: now.toISOString(), profiles: rows.map(toProfile) });
}

export function bundleFileName(now = new Date()): string {
  return `steward-profiles-${now.toISOString().slice(0, 10)}.json`;
}

export type BundleParse = { ok: true; bundle: ProfileBundle } | { ok: false; errors: string[] };

function issuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)), '');
}

function formatIssues(error: z.ZodError): string[] {
  return error.issues.slice(0, 12).map((i) => `${issuePath(i.path) || 'file'}: ${i.message}`);
}

/** A file's text as a profile bundle, or every reason it is not one (nothing is imported then). */
export function parseBundle(text: string): BundleParse {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, errors: [`not JSON: ${err instanceof Error ? err.message : String(err)}`] };
  }
  if (typeof json !== 'object' || json === null || (json as { format?: unknown }).format !== 'steward-profiles/v1') {
    return { ok: false, errors: ['not a Steward profiles file (expected "format": "steward-profiles/v1")'] };
  }
  const parsed = ProfileBundle.safeParse(json);
  if (!parsed.success) return { ok: false, errors: formatIssues(parsed.error) };
  const seen = new Map<string, string>();
  const errors: string[] = [];
  for (const p of parsed.data.profiles) {
    const key = `${p.id}@${p.version}`;
    const text = canonicalJson(p);
    const before = seen.get(key);
    if (before !== undefined && before !== text) errors.push(`${p.id} v${p.version} appears twice with different settings`);
    seen.set(key, text);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, bundle: parsed.data };
}

export interface ImportReport {
  added: ProfileVersionRef[];
  /** Already here, identical. */
  unchanged: ProfileVersionRef[];
  /** Already here with different settings: versions are immutable, so the stored one stays. */
  conflicts: { ref: ProfileVersionRef; message: string }[];
}

export async function importBundle(db: StewardDb, bundle: ProfileBundle): Promise<ImportReport> {
  const report: ImportReport = { added: [], unchanged: [], conflicts: [] };
  await db.transaction('rw', db.profiles, async () => {
    for (const profile of bundle.profiles) {
      const existing = await db.profiles.get([profile.id, profile.version]);
      const namesake = existing ? undefined : nameTakenBy(await db.profiles.where('kind').equals(profile.kind).toArray(), profile.kind, profile.name, profile.id);
      if (!existing && isBuiltinProfileId(profile.id)) {
        report.conflicts.push({ ref: refOf(profile), message: `${profileLabel(profile)}: built-in profiles are read-only, so a version of one is not imported — duplicate it in the file under an id of its own.` });
      } else if (namesake) {
        report.conflicts.push({ ref: refOf(profile), message: `${profileLabel(profile)} was not imported: another ${PROFILE_KIND_LABELS[profile.kind].toLowerCase()} profile here is already called “${namesake.name}” (names are unique per kind) — rename it in the file.` });
      } else if (!existing) {
        await db.profiles.add({ ...profile, origin: 'imported' });
        report.added.push(refOf(profile));
      } else if (sameProfile(toProfile(existing), profile)) {
        report.unchanged.push(refOf(profile));
      } else {
        report.conflicts.push({
          ref: refOf(profile),
          message: `${profileLabel(existing)} already exists with different settings; versions never change, so the stored one was kept. Duplicate it in the file under a new id to import it.`,
        });
      }
    }
  });
  return report;
}

function sameProfile(a: Profile, b: Profile): boolean {
  const { created_at: _a, ...restA } = a;
  const { created_at: _b, ...restB } = b;
  return canonicalJson(restA) === canonicalJson(restB);
}
