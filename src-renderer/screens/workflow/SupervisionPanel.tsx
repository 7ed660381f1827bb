import { useMemo, useRef, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { PROFILE_KINDS, PROFILE_KIND_LABELS, type Profile, type ProfileKind } from '@shared/contracts/profiles';
import type { LifecyclePhase } from '@shared/contracts/spec';
import { validateSupervisionConfig, type ConfigReport } from '@shared/policy/validate-config';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import { runEvents, type ProfileChoice, type ProfileRow, type WorkflowProfiles, type WorkflowRow } from '../../db/db';
import { isReadOnlyProfile, profileChanged, profileLabel, saveEdit, settingsOf, type ProfileInput } from '../../db/profiles';
import { deploymentRowsFor } from '../../db/deployment-owner';
import { renameForPhase, setProfileChoices, setSupervisionEnabled, type ResolvedProfiles } from '../../db/workflow-profiles';
import { Accordion, fieldDomId } from '../../components/Form';
import { Switch } from '../../components/Switch';
import { Spinner } from '../../components/Icons';
import { ModelHealth } from '../../components/ModelHealth';
import { ModelEditor } from '../../components/profile-editors/ModelEditor';
import { HandoverEditor, RulesEditor } from '../../components/profile-editors/SupervisionEditors';
import { DeploymentEditor, LearningEditor, PHASE_OPTIONS, TraceEditor } from '../../components/profile-editors/PolicyEditors';
import { buildRunOverrides } from '../../supervision/run-overrides';
import { effectiveSpec, offeredToolsFor } from '../../supervision/effective-spec';
import { ADVANCED_GROUP_LABELS, fieldTarget, type AdvancedGroup } from '../../supervision/field-targets';
import { useCredentialNames, useStartRun, type WorkflowConfig } from '../../supervision/use-workflow-config';
import { ProfileSelect, ProfileSelectControl } from './ProfileSelect';
import { ValidationReportView } from './ValidationReport';
import { ExposureText, RuntimeGroup, runtimeSummary, SynthesisGroup, synthesisGroupSummary, ToolSafetyGroup } from './AdvancedGroups';
import { RunRounds } from '../RunScreen';
import { ScsSection } from './ScsSection';
import { RoutesSection } from './RoutesSection';
import { scsSettingsOf } from '../../db/workflow-scs';
import { SCS_MODE_SHORT } from '../../view/scs-labels';

type InputOf<K extends ProfileKind> = Extract<ProfileInput, { kind: K }>;
type Drafts = { [K in ProfileKind]?: InputOf<K> };

function inputOf<K extends ProfileKind>(p: Extract<Profile, { kind: K }>): InputOf<K> {
  return { ...settingsOf(p), name: p.name, description: p.description } as InputOf<K>;
}

const ROLE_KINDS = ['teacher', 'student'] as const;
const POLICY_KINDS = ['supervision', 'trace', 'learning_data', 'deployment'] as const;
const POLICY_LABELS = { supervision: 'Supervision', trace: 'Trace', learning_data: 'Learning-data', deployment: 'Deployment' } satisfies Record<(typeof POLICY_KINDS)[number], string>;

/**
 * Seed 000's "Supervision & Learning" panel. Choosing a profile takes effect at once; editing a
 * field edits the chosen profile as a draft, and saving stores it as that profile's next version
 * (versions never change), which the workflow then uses. Validate checks what Run would start.
 */
export function SupervisionPanel({ row, config }: { row: WorkflowRow; config: WorkflowConfig }) {
  const { db, providers, connection } = useHost();
  const credentials = useCredentialNames();
  const startRun = useStartRun();
  const [drafts, setDrafts] = useState<Drafts>({});
  const [open, setOpen] = useState<Set<AdvancedGroup>>(new Set());
  const [showReport, setShowReport] = useState(false);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string>();
  const [dryRun, setDryRun] = useState<{ runId?: string; starting: boolean; error?: string }>({ starting: false });
  const reportRef = useRef<HTMLElement>(null);

  const { resolved, profiles } = config;
  const workflows = useLiveQuery(() => db.workflows.toArray(), [db], []);
  const deploymentRows = useMemo(() => deploymentRowsFor(profiles, row, workflows), [profiles, row, workflows]);
  const valueOf = <K extends ProfileKind>(kind: K): InputOf<K> | undefined => {
    const draft = drafts[kind] as InputOf<K> | undefined;
    const base = resolved[kind] as Extract<Profile, { kind: K }> | undefined;
    return draft ?? (base ? inputOf(base) : undefined);
  };
  const setDraft = <K extends ProfileKind>(kind: K, next: InputOf<K>) => {
    const base = resolved[kind] as Extract<Profile, { kind: K }> | undefined;
    setDrafts((d) => {
      const copy: Drafts = { ...d };
      if (base && !profileChanged(next, base)) delete copy[kind];
      else (copy as Record<string, ProfileInput>)[kind] = next;
      return copy;
    });
  };

  // What Run would use if the drafts were saved: the profiles with the drafts laid over them.
  const effective = useMemo<ResolvedProfiles>(() => {
    const merged: ResolvedProfiles = { ...resolved };
    for (const kind of PROFILE_KINDS) {
      const base = resolved[kind];
      const draft = drafts[kind];
      if (base && draft) (merged as Record<string, unknown>)[kind] = { ...base, ...draft };
    }
    return merged;
  }, [resolved, drafts]);

  const report = useMemo<ConfigReport>(() => {
    const overrides = buildRunOverrides({ enabled: row.supervision_enabled, profiles: effective });
    const spec = effectiveSpec(row.doc, overrides, config.host);
    if (!spec.ok) return { errors: [{ field: 'supervision', message: `These settings do not make a valid workflow: ${spec.message}` }], warnings: [], status: '1 error', phaseLabel: '—' };
    return validateSupervisionConfig({ spec: spec.spec, providers, credentials: credentials.names, privacy: config.privacy, offeredTools: offeredToolsFor(row.doc, config.registry) });
  }, [row, effective, config.registry, config.privacy, config.host, providers, credentials.names]);

  const dirtyKinds = PROFILE_KINDS.filter((k) => drafts[k] !== undefined);
  const missingKinds = PROFILE_KINDS.filter((k) => !resolved[k]);

  const goTo = (field: string) => {
    const target = fieldTarget(field);
    if (target.group) setOpen((o) => new Set(o).add(target.group as AdvancedGroup));
    // After React has committed the opened group (discrete events flush before timers run).
    window.setTimeout(() => {
      const el = document.getElementById(target.id);
      if (!el) return;
      el.scrollIntoView({ block: 'center' });
      el.focus({ preventScroll: true });
      el.classList.add('flash');
      window.setTimeout(() => el.classList.remove('flash'), 1600);
    }, 0);
  };
  const scsMode = scsSettingsOf(row.doc).mode;
  const goToScs = () => {
    const group = document.getElementById(fieldDomId('scs.mode'));
    group?.scrollIntoView({ block: 'center' });
    group?.querySelector<HTMLInputElement>('input:checked')?.focus({ preventScroll: true });
  };
  const toggle = (group: AdvancedGroup) =>
    setOpen((o) => {
      const next = new Set(o);
      if (next.has(group)) next.delete(group);
      else next.add(group);
      return next;
    });

  const choose = async (kind: ProfileKind, choice: ProfileChoice) => {
    setDrafts((d) => {
      const copy = { ...d };
      delete copy[kind];
      return copy;
    });
    await setProfileChoices(db, row.id, { [kind]: choice });
  };

  const nextVersionOf = (id: string) => Math.max(0, ...profiles.filter((p) => p.id === id).map((p) => p.version)) + 1;

  const save = async () => {
    setSaving(true);
    setSaveError(undefined);
    try {
      await db.transaction('rw', db.profiles, db.workflows, async () => {
        const choices: WorkflowProfiles = {};
        for (const kind of dirtyKinds) {
          const base = resolved[kind];
          const draft = drafts[kind];
          if (!base || !draft) continue;
          // A built-in is read-only: its edit is saved as a copy, which the workflow then uses.
          const saved = await saveEdit(db, base, kind === 'deployment' && draft.kind === 'deployment' ? { ...draft, workflow_id: draft.workflow_id ?? row.id } : draft);
          choices[kind] = { id: saved.id, version: saved.version };
        }
        await setProfileChoices(db, row.id, choices);
      });
      setDrafts({});
    } catch (err) {
      setSaveError(err instanceof Error ? err.message : String(err));
    } finally {
      setSaving(false);
    }
  };

  const validate = () => {
    setShowReport(true);
    window.setTimeout(() => reportRef.current?.focus(), 0);
  };

  const runBlocked = dirtyKinds.length > 0 ? 'Save or discard your changes first: a run records saved profile versions.' : report.errors.length > 0 ? 'Fix the errors Validate lists first.' : connection !== 'open' ? 'Not connected to the Steward host.' : undefined;

  const dryRunNow = async () => {
    setDryRun({ starting: true });
    try {
      const runId = await startRun(row, config, { dryRun: true });
      setDryRun({ runId, starting: false });
    } catch (err) {
      setDryRun({ starting: false, error: err instanceof Error ? err.message : String(err) });
    }
  };

  const deployment = valueOf('deployment');
  const supervision = valueOf('supervision');
  const student = valueOf('student');
  const teacher = valueOf('teacher');
  const trace = valueOf('trace');
  const learning = valueOf('learning_data');
  const toolNames = offeredToolsFor(row.doc, config.registry)?.map((t) => t.name) ?? row.doc.servers.flatMap((s) => s.tools ?? []);
  const modified = (kinds: readonly ProfileKind[]) => (kinds.some((k) => drafts[k]) ? <span className="chip chip--accent">edited</span> : undefined);
  const editsLabel = (kind: ProfileKind) => {
    const base = resolved[kind];
    return base ? `edits ${profileLabel(base)}` : 'no profile chosen';
  };

  return (
    <section className="card panel" aria-labelledby="sl-title" data-testid="supervision-panel">
      <header className="panel__head">
        <h2 id="sl-title" className="panel__title">
          Supervision &amp; Learning
        </h2>
        <span className="round__spacer" />
        <div id={fieldDomId('supervision.enabled')} tabIndex={-1}>
          <Switch
            label="Enable supervision and learning"
            checked={row.supervision_enabled}
            onChange={(next) => void setSupervisionEnabled(db, row.id, next)}
            testId="panel-supervision-toggle"
          />
        </div>
      </header>

      <div className="panel__section">
        <h3 className="panel__heading">Configuration status</h3>
        <div className="status-block" data-testid="config-status">
          <p className="status-block__phase" data-testid="config-phase">
            {report.phaseLabel}
          </p>
          <p className={`status-block__state ${report.errors.length ? 'is-error' : report.warnings.length ? 'is-warning' : 'is-ok'}`} data-testid="config-state">
            {report.status}
            {dirtyKinds.length > 0 && <span className="muted"> · with unsaved changes</span>}
          </p>
          <p className="status-block__scs" data-testid="config-scs" data-mode={scsMode}>
            SCS task gates: {SCS_MODE_SHORT[scsMode]}{' '}
            <button type="button" className="link-button" onClick={() => goToScs()}>
              Change
            </button>
          </p>
        </div>
        {missingKinds.length > 0 && (
          <p className="error" role="alert">
            No profile chosen for {missingKinds.map((k) => PROFILE_KIND_LABELS[k]).join(', ')}: runs use the workflow file’s own settings for those.
          </p>
        )}
      </div>

      <div className="panel__section">
        <h3 className="panel__heading">Operating mode</h3>
        <div className="form-grid">
          <div className="form-row">
            <label className="form-row__label" htmlFor={fieldDomId('supervision.phase')}>
              Lifecycle phase
            </label>
            <div className="form-row__control">
              <select
                id={fieldDomId('supervision.phase')}
                className="select"
                value={deployment ? String(deployment.deployment.phase) : ''}
                disabled={!deployment}
                data-testid="phase-select"
                onChange={(e) => {
                  if (!deployment) return;
                  const phase = Number(e.target.value) as LifecyclePhase;
                  setDraft('deployment', { ...deployment, name: renameForPhase(deployment.name, phase), deployment: { ...deployment.deployment, phase } });
                }}
              >
                {PHASE_OPTIONS.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
              <p className="form-row__hint">{deployment ? phaseHint(deployment.deployment.phase) : 'Choose a deployment profile below.'} Stored in the deployment profile.</p>
            </div>
          </div>
        </div>
      </div>

      <div className="panel__section">
        <h3 className="panel__heading">Model roles</h3>
        <div className="form-grid">
          {ROLE_KINDS.map((role) => {
            const value = role === 'teacher' ? teacher : student;
            return (
              <div key={role} className="form-row">
                <label className="form-row__label" htmlFor={fieldDomId(`models.${role}`)}>
                  {role === 'teacher' ? 'Teacher model' : 'Student model'}
                </label>
                <div className="form-row__control">
                  <ProfileSelectControl
                    id={fieldDomId(`models.${role}`)}
                    kind={role}
                    rows={profiles}
                    chosen={row.profiles?.[role]}
                    onChoose={(c) => void choose(role, c)}
                    pending={pendingLabel(resolved[role], drafts[role], nextVersionOf)}
                    describe={(r) => {
                      if (r.kind !== 'student' && r.kind !== 'teacher') return '';
                      const model = r.model.provider === 'script' ? 'replay' : r.model.model;
                      return r.name.toLowerCase().includes(model.toLowerCase()) ? '' : model;
                    }}
                  />
                  {value && <ModelHealth model={value.model} providers={providers} credentialNames={credentials.names} privacy={config.privacy} testId={`model-health-${role}`} />}
                </div>
              </div>
            );
          })}
        </div>
      </div>

      <div className="panel__section">
        <h3 className="panel__heading">Policy profiles</h3>
        <div className="form-grid">
          {POLICY_KINDS.map((kind) => (
            <ProfileSelect
              key={kind}
              id={fieldDomId(`profiles.${kind}`)}
              kind={kind}
              label={POLICY_LABELS[kind]}
              rows={kind === 'deployment' ? deploymentRows : profiles}
              chosen={row.profiles?.[kind]}
              onChoose={(c) => void choose(kind, c)}
              pending={pendingLabel(resolved[kind], drafts[kind], nextVersionOf)}
              describe={kind === 'deployment' ? (r) => (r.kind === 'deployment' ? `Phase ${r.deployment.phase}` : '') : undefined}
            />
          ))}
        </div>
      </div>

      <ScsSection row={row} config={config} />

      <RoutesSection row={row} />

      <div className="panel__section panel__section--advanced">
        <h3 className="panel__heading">Advanced</h3>
        <Accordion title={ADVANCED_GROUP_LABELS.models} summary={`${editsLabel('teacher')} · ${editsLabel('student')}`} open={open.has('models')} onToggle={() => toggle('models')} testId="group-models" badge={modified(['teacher', 'student'])}>
          {ROLE_KINDS.map((role) => {
            const value = role === 'teacher' ? teacher : student;
            if (!value) return null;
            return (
              <div key={role} className="subgroup">
                <h4 className="subgroup__title">
                  {role === 'teacher' ? 'Teacher' : 'Student'} · {value.name}
                </h4>
                <ModelEditor
                  idPrefix="cfg"
                  role={role}
                  value={value.model}
                  providers={providers}
                  credentialNames={credentials.names}
                  onChange={(model) => setDraft(role, { ...value, model } as InputOf<typeof role>)}
                />
              </div>
            );
          })}
        </Accordion>
        <Accordion title={ADVANCED_GROUP_LABELS.rules} summary={editsLabel('supervision')} open={open.has('rules')} onToggle={() => toggle('rules')} testId="group-rules" badge={modified(['supervision'])}>
          {supervision && <RulesEditor idPrefix="cfg" value={supervision.supervision} toolNames={toolNames} onChange={(s) => setDraft('supervision', { ...supervision, supervision: s })} />}
        </Accordion>
        <Accordion title={ADVANCED_GROUP_LABELS.handover} summary={editsLabel('supervision')} open={open.has('handover')} onToggle={() => toggle('handover')} testId="group-handover" badge={modified(['supervision'])}>
          {supervision && <HandoverEditor idPrefix="cfg" value={supervision.supervision} onChange={(s) => setDraft('supervision', { ...supervision, supervision: s })} />}
        </Accordion>
        <Accordion title={ADVANCED_GROUP_LABELS.tools} summary="from the MCP registry" open={open.has('tools')} onToggle={() => toggle('tools')} testId="group-tools">
          <ToolSafetyGroup doc={row.doc} registry={config.registry} host={config.host} />
        </Accordion>
        <Accordion title={ADVANCED_GROUP_LABELS.trace} summary={editsLabel('trace')} open={open.has('trace')} onToggle={() => toggle('trace')} testId="group-trace" badge={modified(['trace', 'learning_data'])}>
          {trace && <TraceEditor idPrefix="cfg" value={trace.trace} onChange={(t) => setDraft('trace', { ...trace, trace: t })} />}
          {learning && (
            <div className="subgroup">
              <h4 className="subgroup__title">Learning data · {learning.name}</h4>
              <LearningEditor idPrefix="cfg" value={learning.learning} onChange={(l) => setDraft('learning_data', { ...learning, learning: l })} />
            </div>
          )}
          {student && teacher && (
            <div className="subgroup">
              <h4 className="subgroup__title">Privacy</h4>
              <ExposureText models={{ student: student.model, teacher: teacher.model }} privacy={config.privacy} ollamaHost={providers?.ollama.host} />
            </div>
          )}
        </Accordion>
        <Accordion title={ADVANCED_GROUP_LABELS.synthesis} summary={synthesisGroupSummary(row.doc)} open={open.has('synthesis')} onToggle={() => toggle('synthesis')} testId="group-synthesis">
          <SynthesisGroup doc={row.doc} />
        </Accordion>
        <Accordion title={ADVANCED_GROUP_LABELS.deployment} summary={editsLabel('deployment')} open={open.has('deployment')} onToggle={() => toggle('deployment')} testId="group-deployment" badge={modified(['deployment'])}>
          {deployment && (
            <>
              <DeploymentEditor idPrefix="cfg" value={deployment.deployment} showPhase={false} onChange={(d) => setDraft('deployment', { ...deployment, deployment: d })} />
              <p className="form-note">
                The phase is set under Operating mode. See the agreement and block rates, and the current suggestion, in <a href={routeHref({ name: 'learning' })}>Learning</a>.
              </p>
            </>
          )}
        </Accordion>
        <Accordion title={ADVANCED_GROUP_LABELS.runtime} summary={runtimeSummary(row.doc)} open={open.has('runtime')} onToggle={() => toggle('runtime')} testId="group-runtime">
          <RuntimeGroup doc={row.doc} />
        </Accordion>
      </div>

      {dirtyKinds.length > 0 && (
        <div className="save-bar" role="region" aria-label="Unsaved profile changes" data-testid="save-bar">
          <div className="save-bar__text">
            <strong>Unsaved changes.</strong> Saving stores new versions; the old ones stay exactly as they are.
            <ul className="plain-list">
              {dirtyKinds.map((kind) => {
                const base = resolved[kind];
                const draft = drafts[kind];
                if (!base || !draft) return null;
                return (
                  <li key={kind} data-testid="version-bump" data-kind={kind}>
                    {PROFILE_KIND_LABELS[kind]}: {profileLabel(base)} →{' '}
                    {isReadOnlyProfile(base) ? (
                      <>
                        <strong>a copy</strong> (built-in profiles are read-only)
                      </>
                    ) : (
                      <>
                        {draft.name !== base.name ? `${draft.name} · ` : ''}
                        <strong>v{nextVersionOf(base.id)}</strong>
                      </>
                    )}
                  </li>
                );
              })}
            </ul>
            {saveError && (
              <p className="error" role="alert">
                {saveError}
              </p>
            )}
          </div>
          <div className="save-bar__actions">
            <button type="button" className="button" onClick={() => setDrafts({})} disabled={saving} data-testid="discard-profiles">
              Discard
            </button>
            <button type="button" className="button button--primary" onClick={() => void save()} disabled={saving} data-testid="save-profiles">
              {saving && <Spinner />}
              Save {dirtyKinds.length === 1 ? 'new version' : `${dirtyKinds.length} new versions`}
            </button>
          </div>
        </div>
      )}

      <footer className="panel__actions">
        <button type="button" className="button" onClick={validate} data-testid="validate-button">
          Validate
        </button>
        <button type="button" className="button" onClick={() => void dryRunNow()} disabled={runBlocked !== undefined || dryRun.starting} data-testid="dry-run-button" title={runBlocked}>
          {dryRun.starting && <Spinner />}
          Dry-run
        </button>
        {runBlocked && <span className="muted panel__blocked">{runBlocked}</span>}
      </footer>

      {showReport && <ValidationReportView ref={reportRef} report={report} onGo={goTo} onClose={() => setShowReport(false)} />}
      {dryRun.error && (
        <p className="error" role="alert" data-testid="dry-run-error">
          Dry-run could not start: {dryRun.error}
        </p>
      )}
      {dryRun.runId && <DryRunResult runId={dryRun.runId} onClose={() => setDryRun({ starting: false })} />}
    </section>
  );
}

function phaseHint(phase: LifecyclePhase): string {
  const hints = {
    0: 'The teacher decides every round; the student is not asked.',
    1: 'The teacher acts; the student proposes alongside and disagreements become learning data.',
    2: 'The student proposes; the teacher reviews every decision.',
    3: 'The student proposes; the teacher reviews when a rule fires (protected effects always).',
    4: 'The student acts; the teacher sees protected effects, invalid output and sampled audits only.',
  } satisfies Record<LifecyclePhase, string>;
  return hints[phase];
}

function pendingLabel(base: ProfileRow | undefined, draft: ProfileInput | undefined, nextVersionOf: (id: string) => number): string | undefined {
  if (!base || !draft) return undefined;
  return isReadOnlyProfile(base) ? 'edited · saves as a copy' : `edited · saves as v${nextVersionOf(base.id)}`;
}

/** Dry-run: the node run with real models and no tool executed, shown round by round right here. */
function DryRunResult({ runId, onClose }: { runId: string; onClose: () => void }) {
  const { db } = useHost();
  const run = useLiveQuery(() => db.runs.get(runId), [db, runId]);
  const events = useLiveQuery(() => runEvents(db, runId), [db, runId], []);
  return (
    <section className="dry-run" aria-label="Dry-run result" data-testid="dry-run-result" data-run-id={runId}>
      <header className="dry-run__head">
        <h3 className="panel__heading">Dry-run</h3>
        <span className="round__spacer" />
        <a className="link-button" href={routeHref({ name: 'run', runId, tab: 'rounds' })}>
          Open in Runs
        </a>
        <button type="button" className="link-button" onClick={onClose}>
          Close
        </button>
      </header>
      <RunRounds runId={runId} run={run} events={events} />
    </section>
  );
}
