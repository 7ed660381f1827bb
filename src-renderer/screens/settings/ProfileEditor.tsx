import { useState, type FormEvent } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { DeploymentSettings, LearningDataSettings, PROFILE_KIND_LABELS, TraceSettings, type ProfileKind } from '@shared/contracts/profiles';
import { SupervisionSpec } from '@shared/contracts/spec';
import { useHost } from '../../app/HostProvider';
import type { ProfileRow } from '../../db/db';
import { createProfile, nameProblem, profileChanged, profileLabel, saveNewVersion, settingsOf, toProfile, type ProfileInput } from '../../db/profiles';
import { TextField } from '../../components/Form';
import { Spinner } from '../../components/Icons';
import { ModelEditor } from '../../components/profile-editors/ModelEditor';
import { HandoverEditor, RulesEditor } from '../../components/profile-editors/SupervisionEditors';
import { DeploymentEditor, LearningEditor, TraceEditor } from '../../components/profile-editors/PolicyEditors';
import { useCredentialNames } from '../../supervision/use-workflow-config';

/** Defaults for a new profile of a kind: the contract's own defaults. */
export function newProfileInput(kind: ProfileKind): ProfileInput {
  const { phase: _phase, ...supervision } = SupervisionSpec.parse({});
  const byKind = {
    student: (): ProfileInput => ({ kind: 'student', name: 'New student', description: '', model: { provider: 'script' } }),
    teacher: (): ProfileInput => ({ kind: 'teacher', name: 'New teacher', description: '', model: { provider: 'script' } }),
    supervision: (): ProfileInput => ({ kind: 'supervision', name: 'New supervision', description: '', supervision }),
    trace: (): ProfileInput => ({ kind: 'trace', name: 'New trace', description: '', trace: TraceSettings.parse({}) }),
    learning_data: (): ProfileInput => ({ kind: 'learning_data', name: 'New learning data', description: '', learning: LearningDataSettings.parse({}) }),
    deployment: (): ProfileInput => ({ kind: 'deployment', name: 'New deployment', description: '', deployment: DeploymentSettings.parse({}) }),
  } satisfies Record<ProfileKind, () => ProfileInput>;
  return byKind[kind]();
}

function SettingsFields({ value, onChange }: { value: ProfileInput; onChange: (v: ProfileInput) => void }) {
  const { providers } = useHost();
  const { names } = useCredentialNames();
  switch (value.kind) {
    case 'student':
    case 'teacher':
      return <ModelEditor idPrefix="pe" role={value.kind} value={value.model} providers={providers} credentialNames={names} onChange={(model) => onChange({ ...value, model })} />;
    case 'supervision':
      return (
        <>
          <h4 className="subgroup__title">Review rules</h4>
          <RulesEditor idPrefix="pe" value={value.supervision} onChange={(supervision) => onChange({ ...value, supervision })} />
          <h4 className="subgroup__title">Handover</h4>
          <HandoverEditor idPrefix="pe" value={value.supervision} onChange={(supervision) => onChange({ ...value, supervision })} />
        </>
      );
    case 'trace':
      return <TraceEditor idPrefix="pe" value={value.trace} onChange={(trace) => onChange({ ...value, trace })} />;
    case 'learning_data':
      return <LearningEditor idPrefix="pe" value={value.learning} onChange={(learning) => onChange({ ...value, learning })} />;
    case 'deployment':
      return <DeploymentEditor idPrefix="pe" value={value.deployment} showPhase onChange={(deployment) => onChange({ ...value, deployment })} />;
  }
}

/**
 * Creates a profile, or saves an edit of one as its next version (`base`). The stored versions are
 * never touched; workflows keep the version they chose until someone picks the new one.
 */
export function ProfileEditor({ base, initial, onDone }: { base?: ProfileRow; initial: ProfileInput; onDone: (saved?: ProfileRow) => void }) {
  const { db } = useHost();
  const [value, setValue] = useState<ProfileInput>(initial);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();
  const baseProfile = base ? toProfile(base) : undefined;
  const unchanged = baseProfile !== undefined && !profileChanged(value, { ...settingsOf(baseProfile), name: baseProfile.name, description: baseProfile.description } as ProfileInput);
  // Names are unique per kind: said as it is typed; saving checks again (another tab may have taken it).
  const ofKind = useLiveQuery(() => db.profiles.where('kind').equals(value.kind).toArray(), [db, value.kind], []);
  const taken = nameProblem(ofKind, value.kind, value.name, base?.id);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setError(undefined);
    try {
      const saved = base ? await saveNewVersion(db, base, value) : await createProfile(db, value);
      onDone(saved);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setSaving(false);
    }
  };

  const nextVersion = base ? `v${base.version + 1}` : 'v1';
  return (
    <form className="profile-editor" onSubmit={(e) => void submit(e)} aria-label={base ? `Edit ${profileLabel(base)}` : `New ${PROFILE_KIND_LABELS[value.kind]} profile`} data-testid="profile-editor">
      <header className="profile-editor__head">
        <h3 className="subgroup__title">{base ? `Edit ${profileLabel(base)} → saves as ${nextVersion}` : `New ${PROFILE_KIND_LABELS[value.kind].toLowerCase()} profile`}</h3>
      </header>
      <div className="form-grid">
        <TextField id="pe-name" label="Name" value={value.name} onChange={(name) => setValue({ ...value, name })} testId="profile-name" />
        <TextField id="pe-description" label="Description" value={value.description ?? ''} onChange={(description) => setValue({ ...value, description })} multiline />
      </div>
      {taken && (
        <p className="error" role="alert" data-testid="profile-name-error">
          {taken}
        </p>
      )}
      <SettingsFields value={value} onChange={setValue} />
      {error && (
        <p className="error" role="alert">
          Not saved: {error}
        </p>
      )}
      <div className="profile-editor__actions">
        <button type="button" className="button" onClick={() => onDone()} disabled={saving}>
          Cancel
        </button>
        <button type="submit" className="button button--primary" disabled={saving || unchanged || !value.name.trim() || taken !== undefined} data-testid="profile-save">
          {saving && <Spinner />}
          {base ? `Save as ${nextVersion}` : 'Create profile'}
        </button>
      </div>
    </form>
  );
}
