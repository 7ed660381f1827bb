import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { StewardDb } from './db';
import { createProfile, duplicateProfile, getProfile, latestVersion, profileChanged, saveEdit, saveNewVersion, settingsOf, toProfile, type ProfileInput } from './profiles';
import { BUILTIN_PROFILES, seedBuiltinProfiles } from './builtin-profiles';
import { applyDeploymentPhase, ensureWorkflowProfiles, pickModel, renameForPhase, resolveWorkflowProfiles, setProfileChoices } from './workflow-profiles';
import { deploymentRowsFor, profileOriginLabel } from './deployment-owner';
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
    const builtin = await getProfile(db, { id: 'risk-gated', version: 1 });
    if (builtin?.kind !== 'supervision') throw new Error('expected the built-in supervision profile');
    const v1 = await duplicateProfile(db, toProfile(builtin), 'Risk-gated, mine');
    if (v1.kind !== 'supervision') throw new Error('kind');
    const before = structuredClone(v1);

    const edited: ProfileInput = { ...settingsOf(toProfile(v1)), name: v1.name, description: v1.description } as ProfileInput;
    if (edited.kind !== 'supervision') throw new Error('kind');
    edited.supervision = { ...edited.supervision, on_escalate: 'human', takeover_rounds: 5 };
    const v2 = await saveNewVersion(db, v1, edited, new Date('2026-02-01T00:00:00Z'));

    expect(v2).toMatchObject({ id: v1.id, version: 2, origin: 'user' });
    expect(v2.kind === 'supervision' && v2.supervision.on_escalate).toBe('human');
    expect(await getProfile(db, { id: v1.id, version: 1 })).toEqual(before);
    expect((await latestVersion(db, v1.id))?.version).toBe(2);

    const v3 = await saveNewVersion(db, v1, edited);
    expect(v3.version).toBe(3);
  });

  it('a built-in profile is read-only: a new version of it is refused, and an edit in a panel is saved as a copy the workflow can use', async () => {
    await seedBuiltinProfiles(db);
    const builtin = await getProfile(db, { id: 'risk-gated', version: 1 });
    if (builtin?.kind !== 'supervision') throw new Error('missing');
    const edited: ProfileInput = { kind: 'supervision', name: builtin.name, description: builtin.description, supervision: { ...builtin.supervision, takeover_rounds: 5 } };
    await expect(saveNewVersion(db, builtin, edited)).rejects.toThrow('Risk-gated (default) is a built-in profile and read-only — duplicate it to change it');
    // A version an older page saved under a built-in's id is read-only too.
    await db.profiles.add({ ...builtin, version: 2, origin: 'user' });
    await expect(saveNewVersion(db, builtin, edited)).rejects.toThrow(/read-only/);

    const copy = await saveEdit(db, builtin, edited);
    const again = await saveEdit(db, builtin, edited);
    expect([copy, again].map((p) => [p.name, p.version, p.origin])).toEqual([
      ['Risk-gated (default) (copy)', 1, 'user'],
      ['Risk-gated (default) (copy) (2)', 1, 'user'],
    ]);
    expect(copy.kind === 'supervision' && copy.supervision.takeover_rounds).toBe(5);
    expect((await latestVersion(db, 'risk-gated'))?.version).toBe(2);
  });

  it('names are unique per kind (case and spaces aside): a second profile of the kind with a taken name is refused, another kind may use it, a renamed profile frees its old name', async () => {
    await seedBuiltinProfiles(db);
    const trace = (name: string, include_tool_results = true): ProfileInput => ({ kind: 'trace', name, description: '', trace: { include_tool_results } });
    const mine = await createProfile(db, trace('Mine'));
    await expect(createProfile(db, trace(' mine  '))).rejects.toThrow('Name: another trace profile is already called “Mine” — names are unique per kind, choose another');
    await expect(createProfile(db, trace('Keep Everything'))).rejects.toThrow(/already called “Keep everything”/);
    await expect(createProfile(db, { kind: 'learning_data', name: 'Mine', description: '', learning: { record: true, kinds: ['review'] } })).resolves.toMatchObject({ name: 'Mine' });
    // A version of the same profile keeps its own name; taking another's is refused.
    const other = await createProfile(db, trace('Other'));
    await expect(saveNewVersion(db, mine, trace('Mine', false))).resolves.toMatchObject({ version: 2 });
    await expect(saveNewVersion(db, other, trace('MINE'))).rejects.toThrow(/already called “Mine”/);
    await saveNewVersion(db, mine, trace('Renamed'));
    await expect(saveNewVersion(db, other, trace('Mine'))).resolves.toMatchObject({ name: 'Mine', version: 2 });
    expect(await db.profiles.where('kind').equals('trace').count()).toBe(2 + 5);
  });

  it('a stored profile and its unedited form are the same; the app’s bookkeeping never counts as an edit', async () => {
    await seedBuiltinProfiles(db);
    const row = await getProfile(db, { id: 'risk-gated', version: 1 });
    if (!row) throw new Error('missing');
    const input = { ...settingsOf(row), name: row.name, description: row.description } as ProfileInput;
    expect(input).not.toHaveProperty('origin');
    expect(profileChanged(input, row)).toBe(false);
    expect(profileChanged({ ...input, name: 'Renamed' }, row)).toBe(true);
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

  it('seeding the built-ins twice adds them once, and never over a version an older page saved under a built-in id', async () => {
    expect(await seedBuiltinProfiles(db)).toBe(BUILTIN_PROFILES.length);
    const v1 = await getProfile(db, { id: 'keep-everything', version: 1 });
    if (v1?.kind !== 'trace') throw new Error('missing');
    await db.profiles.add({ ...v1, version: 2, origin: 'user', trace: { include_tool_results: false } });
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

describe('deployments belong to their workflow', () => {
  const docOf = (id: string, name: string) => HostedWorkflow.parse({ format: 'steward/v1', kind: 'agent', id, name, instructions: 'i', task: 't', supervision: { phase: 3 } });

  it('each workflow gets a deployment of its own; its picker lists its own, the built-in phases and unowned ones, never another workflow’s', async () => {
    await seedBuiltinProfiles(db);
    await db.workflows.bulkAdd([workflowRow(docOf('notes', 'Notes'), 'demo'), workflowRow(docOf('mine', 'Mine'), 'user')]);
    await ensureWorkflowProfiles(db);
    const general = await createProfile(db, { kind: 'deployment', name: 'Careful', description: '', deployment: { phase: 1, promotion: { window: 50, min_examples: 20, promote_agreement: 0.9, demote_block_rate: 0.2 } } });
    const workflows = await db.workflows.toArray();
    const rows = await db.profiles.toArray();
    const notes = workflows.find((w) => w.id === 'notes');
    if (!notes) throw new Error('missing');
    const offered = deploymentRowsFor(rows, notes, workflows).filter((r) => r.kind === 'deployment').map((r) => r.name);
    expect(offered).toContain('Notes · deployment');
    expect(offered).toContain('Phase 3 · risk-gated');
    expect(offered).toContain(general.name);
    expect(offered).not.toContain('Mine · deployment');
    // Other kinds are not filtered.
    expect(deploymentRowsFor(rows, notes, workflows).filter((r) => r.kind === 'trace')).toHaveLength(rows.filter((r) => r.kind === 'trace').length);
  });

  it('Settings labels a demo workflow’s deployment “demo”, a person’s own “yours”, a built-in “built-in”', async () => {
    await seedBuiltinProfiles(db);
    await db.workflows.bulkAdd([workflowRow(docOf('notes', 'Notes'), 'demo'), workflowRow(docOf('mine', 'Mine'), 'user')]);
    await ensureWorkflowProfiles(db);
    const workflows = await db.workflows.toArray();
    const labels = Object.fromEntries((await db.profiles.where('kind').equals('deployment').toArray()).map((r) => [r.name, profileOriginLabel(r, workflows)]));
    expect(labels).toMatchObject({ 'Notes · deployment': 'demo', 'Mine · deployment': 'yours', 'Phase 3 · risk-gated': 'built-in' });
    // The supervision a demo's file implies is the demo's too, until someone edits it.
    await db.workflows.add(workflowRow(HostedWorkflow.parse({ ...docOf('polite', 'Polite'), supervision: { phase: 2, on_block: 'safe_message' } }), 'demo'));
    await ensureWorkflowProfiles(db);
    const polite = (await db.profiles.where('kind').equals('supervision').toArray()).find((r) => r.name === 'Polite (from its file)');
    if (!polite) throw new Error('no supervision from the file');
    expect(profileOriginLabel(polite, await db.workflows.toArray())).toBe('demo');
  });

  it('promoting a workflow that chose a built-in phase gives it a deployment of its own; the built-in stays as shipped', async () => {
    await seedBuiltinProfiles(db);
    await db.workflows.add(workflowRow(docOf('notes', 'Notes'), 'demo'));
    await ensureWorkflowProfiles(db);
    await setProfileChoices(db, 'notes', { deployment: { id: 'phase-3', version: 1 } });
    const saved = await applyDeploymentPhase(db, 'notes', 4);
    expect(saved).toMatchObject({ kind: 'deployment', version: 1, workflow_id: 'notes', deployment: { phase: 4 } });
    expect(saved.id).not.toBe('phase-3');
    expect(saved.name).toMatch(/^Notes · deployment/);
    expect((await latestVersion(db, 'phase-3'))?.version).toBe(1);
    expect((await db.workflows.get('notes'))?.profiles?.deployment).toEqual({ id: saved.id, version: 1 });
  });

  it('a phase change keeps what follows the phase’s label in a name', () => {
    expect(renameForPhase('Phase 3 · risk-gated (copy)', 2)).toBe('Phase 2 · student fully gated (copy)');
    expect(renameForPhase('Phase 3 · risk-gated', 4)).toBe('Phase 4 · autonomous');
    expect(renameForPhase('My deployment', 4)).toBe('My deployment');
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
