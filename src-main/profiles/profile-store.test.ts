import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SyncedProfile, WorkflowChoices } from '@shared/contracts/profile-store';
import { hostPage, openTestHost } from '../../test-support/host-session';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-profile-store-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const cloudStudent = (version: number, temperature: number): SyncedProfile => ({
  origin: 'user',
  profile: {
    kind: 'student',
    id: 'cloud-student-1a2b3c4d',
    name: 'Cloud student',
    version,
    created_at: `2026-11-0${version}T10:00:00.000Z`,
    description: '',
    model: { provider: 'openai_compatible', base_url: 'https://api.example.com/v1', model: 'gpt-x', api_key: 'keychain:example-key', mode: 'structured', temperature, timeout_ms: 120_000 },
  },
});

const choices = (updated_at: string, student: number): WorkflowChoices => ({
  workflow_id: 'demo-read',
  profiles: { student: { id: 'cloud-student-1a2b3c4d', version: student } },
  supervision_enabled: false,
  updated_at,
});

describe('the host keeps the profiles people made (profiles.json in the data folder)', () => {
  it('a saved version and a workflow\'s choices are listed again after a host restart', async () => {
    const dir = dataDir();
    let host = await openTestHost(dir, cleanups);
    const saved = await hostPage(host).ok('profiles.save', { profiles: [cloudStudent(1, 0.2)], workflow_choices: [choices('2026-11-01T10:00:00.000Z', 1)] });
    expect(saved).toEqual({ added: 1, choices_taken: 1, conflicts: [] });
    await host.close();

    host = await openTestHost(dir, cleanups);
    const listed = await hostPage(host, 'another-origin').ok('profiles.list', {});
    expect(listed.profiles).toEqual([cloudStudent(1, 0.2)]);
    expect(listed.workflow_choices).toEqual([choices('2026-11-01T10:00:00.000Z', 1)]);
  });

  it('a version the host holds with other settings is refused as a conflict; the others in the same save are kept', async () => {
    const host = await openTestHost(dataDir(), cleanups);
    const page = hostPage(host);
    await page.ok('profiles.save', { profiles: [cloudStudent(1, 0.2)] });
    const second = await page.ok('profiles.save', { profiles: [cloudStudent(1, 0.9), cloudStudent(2, 0.5)] });
    expect(second.added).toBe(1);
    expect(second.conflicts).toEqual([{ id: 'cloud-student-1a2b3c4d', version: 1, message: expect.stringContaining('Cloud student · v1 is already kept with different settings') }]);
    const { profiles } = await page.ok('profiles.list', {});
    expect(profiles.map((p) => [p.profile.version, p.profile.kind === 'student' && p.profile.model.provider === 'openai_compatible' ? p.profile.model.temperature : undefined])).toEqual([
      [1, 0.2],
      [2, 0.5],
    ]);
    // The same version again (another browser that pulled it) changes nothing.
    expect(await page.ok('profiles.save', { profiles: [cloudStudent(1, 0.2)] })).toEqual({ added: 0, choices_taken: 0, conflicts: [] });
  });

  it('a workflow\'s choices are the newest written: an older save never replaces them', async () => {
    const host = await openTestHost(dataDir(), cleanups);
    const page = hostPage(host);
    await page.ok('profiles.save', { workflow_choices: [choices('2026-11-02T10:00:00.000Z', 2)] });
    expect(await page.ok('profiles.save', { workflow_choices: [choices('2026-11-01T10:00:00.000Z', 1)] })).toMatchObject({ choices_taken: 0 });
    expect((await page.ok('profiles.list', {})).workflow_choices).toEqual([choices('2026-11-02T10:00:00.000Z', 2)]);
    expect(await page.ok('profiles.save', { workflow_choices: [choices('2026-11-03T10:00:00.000Z', 1)] })).toMatchObject({ choices_taken: 1 });
    expect((await page.ok('profiles.list', {})).workflow_choices).toEqual([choices('2026-11-03T10:00:00.000Z', 1)]);
  });

  it('a planted credential value in place of a keychain reference never reaches the host\'s store, its log or the answer', async () => {
    const dir = dataDir();
    const lines: string[] = [];
    const host = await openTestHost(dir, cleanups);
    const page = hostPage(host);
    await page.ok('profiles.save', { profiles: [cloudStudent(1, 0.2)] });
    const planted = `sk-planted${randomBytes(16).toString('hex')}`;
    const withValue = (model: Record<string, unknown>): SyncedProfile => ({ ...cloudStudent(2, 0.2), profile: { ...cloudStudent(2, 0.2).profile, model } } as SyncedProfile);
    const { profile: first } = cloudStudent(1, 0.2);
    const base = first.kind === 'student' ? first.model : undefined;
    for (const model of [
      { ...base, api_key: planted },
      { ...base, api_key: `keychain:x`, api_key_value: planted },
      { ...base, base_url: `https://user:${planted}@api.example.com/v1` },
      { ...base, base_url: `https://api.example.com/v1?api_key=${planted}` },
    ]) {
      const answer = await page.call('profiles.save', { profiles: [withValue(model)] });
      expect(answer.ok).toBe(false);
      if (!answer.ok) {
        expect(answer.error.code).toBe('invalid_params');
        lines.push(answer.error.message);
      }
    }
    await host.close();
    const stored = readFileSync(join(dir, 'profiles.json'), 'utf8');
    expect(stored).toContain('keychain:example-key');
    expect(stored).not.toContain(planted.slice(2));
    expect(lines.join('\n')).not.toContain(planted.slice(2));
  });

  it('a version under a built-in profile\'s id is refused whole (invalid_params naming the field): built-ins are read-only', async () => {
    const dir = dataDir();
    const host = await openTestHost(dir, cleanups);
    const page = hostPage(host);
    const editedBuiltin: SyncedProfile = {
      origin: 'user',
      profile: { kind: 'trace', id: 'keep-everything', name: 'Keep everything', version: 2, created_at: '2026-11-02T10:00:00.000Z', description: '', trace: { include_tool_results: false } },
    };
    const answer = await page.call('profiles.save', { profiles: [cloudStudent(1, 0.2), editedBuiltin] });
    expect(answer.ok ? undefined : answer.error).toEqual({ code: 'invalid_params', message: expect.stringMatching(/^profiles\.1\.profile\.id: "keep-everything" is the built-in profile Keep everything, which is read-only — duplicate it/) });
    // Nothing of that save was kept, not even the valid version beside it.
    expect((await page.ok('profiles.list', {})).profiles).toEqual([]);
  });

  it('a name another profile of the same kind already has is refused as a conflict naming the field; other kinds and renamed profiles may use it', async () => {
    const host = await openTestHost(dataDir(), cleanups);
    const page = hostPage(host);
    const trace = (id: string, name: string, version = 1): SyncedProfile => ({
      origin: 'user',
      profile: { kind: 'trace', id, name, version, created_at: `2026-11-0${version}T10:00:00.000Z`, description: '', trace: { include_tool_results: version % 2 === 0 } },
    });
    const learning: SyncedProfile = {
      origin: 'user',
      profile: { kind: 'learning_data', id: 'mine-learning', name: 'Mine', version: 1, created_at: '2026-11-01T10:00:00.000Z', description: '', learning: { record: true, kinds: ['review'] } },
    };
    expect(await page.ok('profiles.save', { profiles: [trace('mine-1', 'Mine'), learning] })).toEqual({ added: 2, choices_taken: 0, conflicts: [] });

    // Same kind, same name (case and spaces aside), another id: refused; so is a built-in's name. The rest of the save is kept.
    const second = await page.ok('profiles.save', { profiles: [trace('mine-2', '  mine '), trace('mine-3', 'Keep Everything'), trace('other', 'Other')] });
    expect(second.added).toBe(1);
    expect(second.conflicts).toEqual([
      { id: 'mine-2', version: 1, field: 'profiles.0.profile.name', message: expect.stringContaining('another trace profile is already called "Mine" (mine-1); names are unique per kind') },
      { id: 'mine-3', version: 1, field: 'profiles.1.profile.name', message: expect.stringContaining('already called "Keep everything" (keep-everything)') },
    ]);

    // Once mine-1 is renamed in its next version, its old name is free again.
    expect((await page.ok('profiles.save', { profiles: [trace('mine-1', 'Renamed', 2)] })).added).toBe(1);
    expect(await page.ok('profiles.save', { profiles: [trace('mine-2', 'Mine')] })).toEqual({ added: 1, choices_taken: 0, conflicts: [] });
    const names = (await page.ok('profiles.list', {})).profiles.map((p) => `${p.profile.kind}:${p.profile.id}@${p.profile.version}=${p.profile.name}`);
    expect(names).toEqual(['trace:mine-1@1=Mine', 'learning_data:mine-learning@1=Mine', 'trace:other@1=Other', 'trace:mine-1@2=Renamed', 'trace:mine-2@1=Mine']);
  });

  it('a damaged store is reported and never overwritten by a save', async () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'profiles.json'), '{"format":"steward-profile-store/v1","profiles":[');
    const host = await openTestHost(dir, cleanups);
    const answer = await hostPage(host).call('profiles.save', { profiles: [cloudStudent(1, 0.2)] });
    expect(answer.ok ? undefined : answer.error).toEqual({ code: 'host_error', message: expect.stringContaining('profiles.json is damaged') });
    expect(readFileSync(join(dir, 'profiles.json'), 'utf8')).toBe('{"format":"steward-profile-store/v1","profiles":[');
  });
});
