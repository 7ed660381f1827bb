import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { StewardDb } from './db';
import { createProfile, duplicateProfile, getProfile, latestVersion, profileChanged, saveNewVersion, settingsOf, toProfile, type ProfileInput } from './profiles';
import { BUILTIN_PROFILES, seedBuiltinProfiles } from './builtin-profiles';
import { applyDeploymentPhase, ensureWorkflowProfiles, pickModel, resolveWorkflowProfiles } from './workflow-profiles';
import { workflowRow } from './seed-demo';
import { buildRunOverrides } from '../supervision/run-overrides';

let db: StewardDb;
beforeEach(async () => {
  db = new StewardDb(`steward-profiles-test-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

describe('profile versions', () => {
  it('an edit saves a new version and leaves the old version exactly as it was', async () => {
    await seedBuiltinProfiles(db, new Date('2026-01-01T00:00:00Z'));
    const v1 = await getProfile(db, { id: 'risk-gated', version: 1 });
    if (v1?.kind !== 'supervision') throw new Error('expected the built-in supervision profile');
    const before = structuredClone(v1);

    const edited: ProfileInput = { ...settingsOf(toProfile(v1)), name: v1.name, description: v1.description } as ProfileInput;
    if (edited.kind !== 'supervision') throw new Error('kind');
    edited.supervision = { ...edited.supervision, on_escalate: 'human', takeover_rounds: 5 };
    const v2 = await saveNewVersion(db, v1, edited, new Date('2026-02-01T00:00:00Z'));

    expect(v2).toMatchObject({ id: 'risk-gated', version: 2, origin: 'user' });
    expect(v2.kind === 'supervision' && v2.supervision.on_escalate).toBe('human');
    expect(await getProfile(db, { id: 'risk-gated', version: 1 })).toEqual(before);
    expect((await latestVersion(db, 'risk-gated'))?.version).toBe(2);

    const v3 = await saveNewVersion(db, v1, edited);
    expect(v3.version).toBe(3);
  });

  it('a stored profile and its unedited form are the same; the app’s bookkeeping never counts as an edit', async () => {
    await seedBuiltinProfiles(db);
    const row = await getProfile(db, { id: 'risk-gated', version: 1 });
    if (!row) throw new Error('missing');
    const input = { ...settingsOf(row), name: row.name, description: row.description } as ProfileInput;
    expect(input).not.toHaveProperty('origin');
    expect(profileChanged(input, row)).toBe(false);
    expect(profileChanged({ ...input, name: 'Renamed' }, row)).toBe(true);
    await expect(saveNewVersion(db, row, input)).resolves.toMatchObject({ version: 2 });
  });

  it('two concurrent saves never claim the same version', async () => {
    const base = await createProfile(db, { kind: 'trace', name: 'Mine', description: '', trace: { include_tool_results: true } });
    const input = (days: number): ProfileInput => ({ kind: 'trace', name: 'Mine', description: '', trace: { include_tool_results: true, retention_days: days } });
    const saved = await Promise.all([saveNewVersion(db, base, input(7)), saveNewVersion(db, base, input(14))]);
    expect(saved.map((p) => p.version).sort()).toEqual([2, 3]);
  });

  it('refuses an invalid profile and a change of kind, storing nothing', async () => {
    const base = await createProfile(db, { kind: 'trace', name: 'Mine', description: '', trace: { include_tool_results: true } });
    await expect(saveNewVersion(db, base, { kind: 'trace', name: '', description: '', trace: { include_tool_results: true } })).rejects.toThrow();
    await expect(saveNewVersion(db, base, { kind: 'learning_data', name: 'x', description: '', learning: { record: true, kinds: ['review'] } })).rejects.toThrow(/cannot become/);
    await expect(
      createProfile(db, { kind: 'teacher', name: 'Cloud', description: '', model: { provider: 'openai_compatible', base_url: 'https://api.example.com/v1', model: 'm', api_key: 'sk-live-abcdef0123456789abcdef' as `keychain:${string}`, mode: 'structured', timeout_ms: 1000 } }),
    ).rejects.toThrow();
    expect(await db.profiles.count()).toBe(1);
  });

  it('a duplicate is a new profile at version 1 with the same settings', async () => {
    await seedBuiltinProfiles(db);
    const source = await getProfile(db, { id: 'fully-gated', version: 1 });
    if (!source) throw new Error('missing');
    const copy = await duplicateProfile(db, toProfile(source), 'Fully gated, for notes');
    expect(copy.id).not.toBe(source.id);
    expect(copy.version).toBe(1);
    expect(settingsOf(toProfile(copy))).toEqual(settingsOf(toProfile(source)));
  });

  it('seeding the built-ins twice adds them once, and never over an edited built-in', async () => {
    expect(await seedBuiltinProfiles(db)).toBe(BUILTIN_PROFILES.length);
    const v1 = await getProfile(db, { id: 'keep-everything', version: 1 });
    if (!v1) throw new Error('missing');
    await saveNewVersion(db, v1, { kind: 'trace', name: 'Keep everything', description: '', trace: { include_tool_results: false } });
    expect(await seedBuiltinProfiles(db)).toBe(0);
    expect((await latestVersion(db, 'keep-everything'))?.version).toBe(2);
  });
});

describe('workflow profile choices', () => {
  const doc = (id: string, supervision: object) =>
    HostedWorkflow.parse({ format: 'steward/v1', kind: 'agent', id, name: id, instructions: 'i', task: 't', supervision });

  it('a workflow gets profiles that reproduce its own file: built-ins when they match, a profile of its own when not', async () => {
    await seedBuiltinProfiles(db);
    await db.workflows.bulkAdd([workflowRow(doc('plain', { phase: 3, on_block: 'fail' }), 'demo'), workflowRow(doc('polite', { phase: 2, on_block: 'safe_message' }), 'demo')]);
    expect(await ensureWorkflowProfiles(db)).toBe(2);
    expect(await ensureWorkflowProfiles(db)).toBe(0);

    const plain = await db.workflows.get('plain');
    expect(plain?.profiles).toMatchObject({ student: { id: 'replay-student' }, teacher: { id: 'replay-teacher' }, supervision: { id: 'risk-gated' } });

    const polite = await db.workflows.get('polite');
    const resolved = await resolveWorkflowProfiles(db, polite?.profiles);
    expect(resolved.supervision?.name).toBe('polite (from its file)');
    expect(resolved.deployment).toMatchObject({ name: 'polite · deployment', version: 1, deployment: { phase: 2 } });
    const overrides = buildRunOverrides({ enabled: true, profiles: resolved });
    expect(overrides.supervision).toEqual(polite?.doc.supervision);
    expect(overrides.profiles?.supervision).toMatchObject({ name: 'polite (from its file)', version: 1 });
  });
});

describe('applying a promotion', () => {
  it('moves the workflow to a new deployment version with the new phase, leaving the old version and other workflows alone', async () => {
    await seedBuiltinProfiles(db);
    const doc = HostedWorkflow.parse({ format: 'steward/v1', kind: 'agent', id: 'notes', name: 'Notes', instructions: 'i', task: 't', supervision: { phase: 3 } });
    await db.workflows.add(workflowRow(doc, 'demo'));
    await db.workflows.add({ ...workflowRow({ ...doc, id: 'other', name: 'Other' }, 'demo') });
    await ensureWorkflowProfiles(db);
    const before = await db.workflows.get('notes');
    const oldChoice = before?.profiles?.deployment;
    if (!oldChoice) throw new Error('no deployment');
    const v1 = await getProfile(db, oldChoice);

    const saved = await applyDeploymentPhase(db, 'notes', 4);
    expect(saved).toMatchObject({ id: oldChoice.id, version: 2, deployment: { phase: 4 } });
    expect((await db.workflows.get('notes'))?.profiles?.deployment).toEqual({ id: oldChoice.id, version: 2 });
    expect(await getProfile(db, oldChoice)).toEqual(v1);
    const other = await db.workflows.get('other');
    expect(other?.profiles?.deployment?.id).not.toBe(oldChoice.id);
    await expect(applyDeploymentPhase(db, 'missing', 2)).rejects.toThrow(/no deployment profile/);
  });
});

describe('picking models on the card', () => {
  it('two quick picks both stick, each as a model profile of its role', async () => {
    await seedBuiltinProfiles(db);
    await db.workflows.add(workflowRow(HostedWorkflow.parse({ format: 'steward/v1', kind: 'agent', id: 'w', name: 'W', instructions: 'i', task: 't' }), 'demo'));
    await ensureWorkflowProfiles(db);
    const qwen = { provider: 'ollama', model: 'qwen3:4b', mode: 'structured', timeout_ms: 120_000 } as const;
    await Promise.all([pickModel(db, 'w', 'student', qwen), pickModel(db, 'w', 'teacher', qwen)]);
    const resolved = await resolveWorkflowProfiles(db, (await db.workflows.get('w'))?.profiles);
    expect(resolved.student).toMatchObject({ kind: 'student', name: 'ollama:qwen3:4b student', model: qwen });
    expect(resolved.teacher).toMatchObject({ kind: 'teacher', model: qwen });
    // Picking the same model again reuses the profile.
    await pickModel(db, 'w', 'student', qwen);
    expect(await db.profiles.where('kind').equals('student').count()).toBe(2);
  });
});
