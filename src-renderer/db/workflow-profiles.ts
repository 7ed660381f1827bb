import { PROFILE_KINDS, DeploymentSettings, type ProfileKind } from '@shared/contracts/profiles';
import { PHASE_LABELS, type LifecyclePhase } from '@shared/contracts/spec';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { modelLabel, type ModelRef } from '@shared/contracts/model';
import { canonicalJson } from '@shared/util/canonical-json';
import type { ProfileChoice, ProfileRow, StewardDb, WorkflowProfiles, WorkflowRow } from './db';
import { createProfileNamedFreely, deriveProfileOnce, getProfile, isReadOnlyProfile, latestOfEach, saveNewVersion, uniqueProfileName, type ProfileInput, type ProfileOf } from './profiles';

/** A workflow's profiles, each the exact version it chose. */
export type ResolvedProfiles = { [K in ProfileKind]?: ProfileOf<K> & { origin: ProfileRow['origin'] } };

export async function resolveWorkflowProfiles(db: StewardDb, choices: WorkflowProfiles | undefined): Promise<ResolvedProfiles> {
  const resolved: ResolvedProfiles = {};
  for (const kind of PROFILE_KINDS) {
    const choice = choices?.[kind];
    if (!choice) continue;
    const row = await getProfile(db, choice);
    if (row && row.kind === kind) (resolved as Record<string, ProfileRow>)[kind] = row;
  }
  return resolved;
}

const sameModel = (a: ModelRef, b: ModelRef): boolean => modelLabel(a) === modelLabel(b) && a.provider === b.provider;

/**
 * The model profile for a model picked on the card: the current choice if it already is that
 * model, else the newest profile of the role running it, else a new profile named after it.
 */
export async function findOrCreateModelProfile(db: StewardDb, role: 'student' | 'teacher', ref: ModelRef, current?: ProfileChoice): Promise<ProfileRow> {
  if (current) {
    const row = await getProfile(db, current);
    if (row && row.kind === role && sameModel(row.model, ref)) return row;
  }
  const candidates = latestOfEach(await db.profiles.where('kind').equals(role).toArray());
  const match = candidates.find((p) => (p.kind === 'student' || p.kind === 'teacher') && sameModel(p.model, ref));
  if (match) return match;
  const name = `${modelLabel(ref)} ${role}`;
  return deriveProfileOnce(db, `${role}:${canonicalJson(ref)}`, { kind: role, name, description: `Made when ${modelLabel(ref)} was picked as the ${role}.`, model: ref });
}

async function findOrCreate(db: StewardDb, kind: ProfileKind, settingsJson: string, compare: (p: ProfileRow) => string, create: () => Promise<ProfileRow>): Promise<ProfileRow> {
  const latest = latestOfEach(await db.profiles.where('kind').equals(kind).toArray());
  // Built-ins first, so a workflow that matches the defaults shows their familiar names.
  const match = [...latest.filter((p) => p.origin === 'builtin'), ...latest.filter((p) => p.origin !== 'builtin')].find((p) => compare(p) === settingsJson);
  return match ?? create();
}

/** Profile choices reproducing exactly what the workflow file says (its models, supervision, phase). */
export async function deriveChoices(db: StewardDb, row: WorkflowRow): Promise<WorkflowProfiles> {
  const doc: HostedWorkflow = row.doc;
  const choices: WorkflowProfiles = { ...row.profiles };
  const pick = (p: ProfileRow): ProfileChoice => ({ id: p.id, version: p.version });

  if (!choices.student) choices.student = pick(await findOrCreateModelProfile(db, 'student', row.student ?? doc.models.student));
  if (!choices.teacher) choices.teacher = pick(await findOrCreateModelProfile(db, 'teacher', row.teacher ?? doc.models.teacher));
  if (!choices.supervision) {
    const { phase: _phase, ...own } = { ...doc.supervision, enabled: true };
    const p = await findOrCreate(
      db,
      'supervision',
      canonicalJson(own),
      (p) => (p.kind === 'supervision' ? canonicalJson({ ...p.supervision, enabled: true }) : ''),
      () =>
        deriveProfileOnce(db, `supervision:${row.id}:${canonicalJson(own)}`, {
          kind: 'supervision',
          name: `${doc.name} (from its file)`,
          description: `The supervision settings written in the ${doc.name} workflow file.`,
          supervision: own,
        }),
    );
    choices.supervision = pick(p);
  }
  if (!choices.deployment) {
    // The phase is earned per workflow (Learning suggests, the user applies), so each workflow
    // gets a deployment profile of its own: promoting one never moves another.
    const p = await deriveProfileOnce(db, `deployment:${row.id}:${doc.supervision.phase}`, {
      kind: 'deployment',
      name: `${doc.name} · deployment`,
      description: `The lifecycle phase of ${doc.name}, and when Learning suggests changing it. Its file starts it at phase ${doc.supervision.phase}.`,
      deployment: DeploymentSettings.parse({ phase: doc.supervision.phase }),
      workflow_id: row.id,
    });
    choices.deployment = pick(p);
  }
  for (const [kind, id] of [
    ['trace', 'keep-everything'],
    ['learning_data', 'record-all-learning'],
  ] as const) {
    if (choices[kind]) continue;
    const p = latestOfEach(await db.profiles.where('id').equals(id).toArray())[0];
    if (p) choices[kind] = pick(p);
  }
  return choices;
}

/**
 * When derived choices were made: never. A default a page derives from a workflow's file is older
 * than any choice a person made, in whatever order a fresh page derives and hears from the host,
 * so the exchange (profile-sync.ts) never sends a default over a person's choice, nor keeps one
 * over theirs. Two pages' defaults are equally old: neither replaces the other.
 */
const DERIVED_CHOICES_AT = new Date(0).toISOString();

/** Gives every workflow without a full set of choices the profiles its own file implies. */
export async function ensureWorkflowProfiles(db: StewardDb): Promise<number> {
  return db.transaction('rw', db.workflows, db.profiles, async () => {
    let changed = 0;
    for (const row of await db.workflows.toArray()) {
      if (row.profiles && PROFILE_KINDS.every((k) => row.profiles?.[k])) continue;
      const profiles = await deriveChoices(db, row);
      // Filling in kinds a person's choices lack keeps when they chose.
      await db.workflows.update(row.id, { profiles, choices_at: row.choices_at ?? DERIVED_CHOICES_AT });
      changed += 1;
    }
    return changed;
  });
}

/** The chosen versions out of an already loaded list of profile rows (for live queries). */
export function resolveFromRows(rows: readonly ProfileRow[], choices: WorkflowProfiles | undefined): ResolvedProfiles {
  const resolved: ResolvedProfiles = {};
  for (const kind of PROFILE_KINDS) {
    const choice = choices?.[kind];
    const row = choice && rows.find((r) => r.id === choice.id && r.version === choice.version && r.kind === kind);
    if (row) (resolved as Record<string, ProfileRow>)[kind] = row;
  }
  return resolved;
}

/** "Phase 3 · risk-gated" follows its phase when the phase changes; a name a person chose is kept. */
export function renameForPhase(name: string, phase: LifecyclePhase): string {
  const match = /^Phase ([0-4]) · /.exec(name);
  if (!match) return name;
  const label = PHASE_LABELS[Number(match[1]) as LifecyclePhase].toLowerCase();
  const rest = name.slice(match[0].length);
  // What follows its phase's label (" (copy)", a person's words) stays.
  const tail = rest.toLowerCase().startsWith(label) ? rest.slice(label.length) : '';
  return `Phase ${phase} · ${PHASE_LABELS[phase].toLowerCase()}${tail}`;
}

/**
 * Applies a phase change (a promotion suggestion the user accepted): the workflow's deployment
 * profile gets its next version with the new phase, and the workflow moves to that version. The
 * version it had stays as it was (runs that used it still say so).
 */
export async function applyDeploymentPhase(db: StewardDb, workflowId: string, phase: LifecyclePhase, now = new Date()): Promise<ProfileRow> {
  return db.transaction('rw', db.profiles, db.workflows, async () => {
    const row = await db.workflows.get(workflowId);
    const choice = row?.profiles?.deployment;
    if (!row || !choice) throw new Error(`workflow ${workflowId} has no deployment profile to change`);
    const current = await getProfile(db, choice);
    if (!current || current.kind !== 'deployment') throw new Error(`the deployment profile ${choice.id} v${choice.version} is missing`);
    const next: ProfileInput = { kind: 'deployment', name: renameForPhase(current.name, phase), description: current.description, deployment: { ...current.deployment, phase }, workflow_id: current.workflow_id ?? workflowId };
    // A built-in phase is read-only: the workflow gets a deployment of its own with the new phase.
    const saved = isReadOnlyProfile(current)
      ? await createProfileNamedFreely(db, { ...next, name: `${row.doc.name} · deployment`, description: `The lifecycle phase of ${row.doc.name}, and when Learning suggests changing it.` })
      : await saveNewVersion(db, current, { ...next, name: uniqueProfileName(await db.profiles.where('kind').equals('deployment').toArray(), 'deployment', next.name, current.id) }, now);
    await db.workflows.update(workflowId, { profiles: { ...row.profiles, deployment: { id: saved.id, version: saved.version } }, updated_at: now.toISOString(), choices_at: now.toISOString() });
    return saved;
  });
}

/** Sets one of a workflow's profile choices, merging into what is stored now (never a stale copy). */
export async function setProfileChoices(db: StewardDb, workflowId: string, changes: WorkflowProfiles, now = new Date()): Promise<void> {
  await db.transaction('rw', db.workflows, async () => {
    const row = await db.workflows.get(workflowId);
    if (!row) throw new Error(`no workflow ${workflowId}`);
    await db.workflows.update(workflowId, { profiles: { ...row.profiles, ...changes }, updated_at: now.toISOString(), choices_at: now.toISOString() });
  });
}

/** The workflow's supervision switch; like a profile choice, it follows to other browsers (profile-sync.ts). */
export async function setSupervisionEnabled(db: StewardDb, workflowId: string, enabled: boolean, now = new Date()): Promise<void> {
  await db.workflows.update(workflowId, { supervision_enabled: enabled, updated_at: now.toISOString(), choices_at: now.toISOString() });
}

/** A model picked on the workflow card: its role's profile (found or made) becomes the choice, in one transaction. */
export async function pickModel(db: StewardDb, workflowId: string, role: 'student' | 'teacher', ref: ModelRef): Promise<ProfileRow> {
  return db.transaction('rw', db.workflows, db.profiles, async () => {
    const row = await db.workflows.get(workflowId);
    const profile = await findOrCreateModelProfile(db, role, ref, row?.profiles?.[role]);
    await setProfileChoices(db, workflowId, { [role]: { id: profile.id, version: profile.version } });
    return profile;
  });
}
