import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StewardDb } from './db';
import { seedBuiltinProfiles } from './builtin-profiles';
import { exportBundle, importBundle, parseBundle } from './profile-bundle';
import { createProfile, getProfile, saveNewVersion, toProfile } from './profiles';

const dbs: StewardDb[] = [];
async function freshDb(): Promise<StewardDb> {
  const db = new StewardDb(`steward-bundle-test-${Math.random().toString(36).slice(2)}`);
  await db.open();
  dbs.push(db);
  return db;
}
let source: StewardDb;
beforeEach(async () => {
  source = await freshDb();
});
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.delete();
});

describe('profile export and import', () => {
  it('round-trips every version through a file, and importing the same file again changes nothing', async () => {
    await seedBuiltinProfiles(source);
    const teacher = await createProfile(source, {
      kind: 'teacher',
      name: 'Cloud teacher',
      description: '',
      model: { provider: 'openai_compatible', base_url: 'https://api.example.com/v1', model: 'big-1', api_key: 'keychain:example', mode: 'structured', timeout_ms: 60_000 },
    });
    await saveNewVersion(source, teacher, { kind: 'teacher', name: 'Cloud teacher', description: 'cooler', model: { provider: 'openai_compatible', base_url: 'https://api.example.com/v1', model: 'big-1', api_key: 'keychain:example', mode: 'structured', temperature: 0, timeout_ms: 60_000 } });
    const text = JSON.stringify(await exportBundle(source));
    expect(text).toContain('keychain:example');

    const target = await freshDb();
    const parsed = parseBundle(text);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    // Built-ins ship with every Steward and are read-only: the file holds the person's own versions only.
    expect(parsed.bundle.profiles.map((p) => `${p.id}@${p.version}`)).toEqual([`${teacher.id}@1`, `${teacher.id}@2`]);
    const first = await importBundle(target, parsed.bundle);
    expect(first.added).toHaveLength(2);
    expect(first.conflicts).toEqual([]);
    const again = await importBundle(target, parsed.bundle);
    expect(again.added).toEqual([]);
    expect(again.unchanged).toHaveLength(first.added.length);

    const copied = await getProfile(target, { id: teacher.id, version: 2 });
    expect(copied && toProfile(copied)).toEqual(toProfile((await getProfile(source, { id: teacher.id, version: 2 }))!));
    expect(copied?.origin).toBe('imported');
  });

  it('a file bringing a version of a built-in, or a name another profile of the kind has, imports neither and says why', async () => {
    await seedBuiltinProfiles(source);
    await createProfile(source, { kind: 'trace', name: 'Mine', description: '', trace: { include_tool_results: true } });
    const builtin = await getProfile(source, { id: 'keep-everything', version: 1 });
    if (!builtin) throw new Error('missing');
    const bundle = {
      format: 'steward-profiles/v1' as const,
      exported_at: '2026-01-01T00:00:00Z',
      profiles: [
        { ...toProfile(builtin), version: 2 },
        { kind: 'trace' as const, id: 'theirs-1', name: 'mine', version: 1, created_at: '2026-01-01T00:00:00Z', description: '', trace: { include_tool_results: false } },
        { kind: 'trace' as const, id: 'theirs-2', name: 'Theirs', version: 1, created_at: '2026-01-01T00:00:00Z', description: '', trace: { include_tool_results: false } },
      ],
    };
    const report = await importBundle(source, bundle);
    expect(report.added.map((r) => r.id)).toEqual(['theirs-2']);
    expect(report.conflicts.map((c) => c.message)).toEqual([
      expect.stringContaining('Keep everything · v2: built-in profiles are read-only'),
      expect.stringContaining('another trace profile here is already called “Mine” (names are unique per kind)'),
    ]);
    expect(await getProfile(source, { id: 'keep-everything', version: 2 })).toBeUndefined();
  });

  it('rejects a bad file with the reasons, and imports nothing from it', async () => {
    expect(parseBundle('{ not json')).toMatchObject({ ok: false, errors: [expect.stringMatching(/^not JSON/)] });
    expect(parseBundle('{"format":"something-else"}')).toMatchObject({ ok: false, errors: [expect.stringMatching(/not a Steward profiles file/)] });
    const bad = {
      format: 'steward-profiles/v1',
      exported_at: '2026-01-01T00:00:00Z',
      profiles: [
        { kind: 'deployment', id: 'p', name: 'P', version: 1, created_at: 'x', deployment: { phase: 7 } },
        { kind: 'teacher', id: 't', name: 'T', version: 1, created_at: 'x', model: { provider: 'openai_compatible', base_url: 'https://a.example.com', model: 'm', api_key: 'sk-abcdefghijklmnopqrstuvwxyz012345' } },
      ],
    };
    const result = parseBundle(JSON.stringify(bad));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.some((e) => e.startsWith('profiles[0].deployment.phase'))).toBe(true);
    expect(result.errors.some((e) => e.startsWith('profiles[1].model.api_key'))).toBe(true);
  });

  it('keeps a stored version when a file brings different settings under the same id and version', async () => {
    const mine = await createProfile(source, { kind: 'trace', name: 'Mine', description: '', trace: { include_tool_results: true } }, { id: 'shared-trace' });
    const theirs = { ...toProfile(mine), trace: { include_tool_results: false } };
    const parsed = parseBundle(JSON.stringify({ format: 'steward-profiles/v1', exported_at: 'now', profiles: [theirs] }));
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const report = await importBundle(source, parsed.bundle);
    expect(report.conflicts).toHaveLength(1);
    expect(report.conflicts[0]?.message).toMatch(/versions never change/);
    const stored = await getProfile(source, { id: 'shared-trace', version: 1 });
    expect(stored?.kind === 'trace' && stored.trace.include_tool_results).toBe(true);
  });
});
