import { useRef, useState, type ChangeEvent } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { PROFILE_KINDS, PROFILE_KIND_LABELS, type ProfileKind } from '@shared/contracts/profiles';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import { deleteProfile, type ProfileDeleteOutcome } from '../../db/profile-delete';
import { ConfirmButton } from '../../components/ConfirmButton';
import type { ProfileRow } from '../../db/db';
import { isReadOnlyProfile, latestOfEach, settingsOf, toProfile, uniqueProfileName, type ProfileInput } from '../../db/profiles';
import { profileOriginLabel } from '../../db/deployment-owner';
import { bundleFileName, exportBundle, importBundle, parseBundle, type ImportReport } from '../../db/profile-bundle';
import { Chip } from '../../components/Chip';
import { downloadText } from '../../view/download';
import { formatDateTime, plural } from '../../view/format';
import { ProfileEditor, newProfileInput } from './ProfileEditor';
import { ProfileConflicts } from './ProfileConflicts';
import { ProfileReplayButton, ProfileReplayResultView, TEACHER_REPLAY_TITLE, useProfileReplay } from './ProfileReplay';
import { TeacherReplayView, useTeacherReplay } from './TeacherReplay';
import { BLOCK_BEHAVIOUR_LABELS, ESCALATION_BEHAVIOUR_LABELS } from '@shared/contracts/spec';

type Editing = { base?: ProfileRow; initial: ProfileInput };


const lower = (text: string) => `${text.charAt(0).toLowerCase()}${text.slice(1)}`;

function summary(row: ProfileRow): string {
  switch (row.kind) {
    case 'student':
    case 'teacher':
      return row.model.provider === 'script' ? 'replay' : row.model.provider === 'ollama' ? `ollama:${row.model.model}` : `${row.model.base_url} · ${row.model.model}`;
    case 'supervision':
      return `when blocked: ${lower(BLOCK_BEHAVIOUR_LABELS[row.supervision.on_block])} · when escalated: ${lower(ESCALATION_BEHAVIOUR_LABELS[row.supervision.on_escalate])}`;
    case 'trace':
      return `${row.trace.include_tool_results ? 'with' : 'without'} tool results${row.trace.retention_days ? `, deleted after ${row.trace.retention_days} days` : ''}${row.trace.retention_runs ? `, newest ${row.trace.retention_runs} runs kept` : ''}`;
    case 'learning_data':
      return row.learning.record ? row.learning.kinds.join(', ') || 'nothing' : 'records nothing';
    case 'deployment':
      return `phase ${row.deployment.phase}, promote at ${Math.round(row.deployment.promotion.promote_agreement * 100)}%`;
  }
}

function ProfileItem({ latest, versions, origin, onEdit, onDuplicate, onDelete }: { latest: ProfileRow; versions: ProfileRow[]; origin: string; onEdit: () => void; onDuplicate: () => void; onDelete: () => Promise<void> }) {
  const readOnly = isReadOnlyProfile(latest);
  // A supervision profile's review rules can be put to the recorded rounds (issue 31).
  const replay = useProfileReplay(() => toProfile(latest));
  // A teacher profile's model can be put to the recorded teacher verdicts (issue 31).
  const teacherReplay = useTeacherReplay(() => toProfile(latest));
  return (
    <li className="profile-item" data-testid="profile-item" data-profile-id={latest.id} data-version={latest.version} data-origin={origin}>
      <div className="profile-item__main">
        <div className="profile-item__title">
          <strong>{latest.name}</strong> <span className="tag">v{latest.version}</span>
          <Chip>{origin}</Chip>
        </div>
        <p className="muted profile-item__summary">{summary(latest)}</p>
        {versions.length > 1 && (
          <details className="profile-item__versions">
            <summary>{plural(versions.length, 'version')}</summary>
            <ol className="plain-list">
              {[...versions].reverse().map((v) => (
                <li key={v.version}>
                  v{v.version} · {formatDateTime(v.created_at)} · <span className="muted">{summary(v)}</span>
                </li>
              ))}
            </ol>
          </details>
        )}
        {replay.replay && <ProfileReplayResultView replay={replay.replay} onClose={replay.close} />}
        {teacherReplay.replay && <TeacherReplayView replay={teacherReplay.replay} onCancel={teacherReplay.cancel} onClose={teacherReplay.close} />}
      </div>
      <div className="profile-item__actions">
        {latest.kind === 'supervision' && <ProfileReplayButton name={latest.name} disabled={!replay.canStart} onClick={replay.start} />}
        {latest.kind === 'teacher' && latest.model.provider !== 'script' && <ProfileReplayButton name={latest.name} disabled={!teacherReplay.canStart} onClick={teacherReplay.start} title={TEACHER_REPLAY_TITLE} />}
        {readOnly ? (
          <span className="muted profile-item__readonly" title="Built-in profiles ship with Steward and never change: duplicate one to make your own.">
            read-only
          </span>
        ) : (
          <button type="button" className="button button--small" onClick={onEdit} aria-label={`Edit ${latest.name}`} data-testid="profile-edit">
            Edit
          </button>
        )}
        <button type="button" className="button button--small" onClick={onDuplicate} aria-label={`Duplicate ${latest.name}`} data-testid="profile-duplicate">
          Duplicate
        </button>
        {!readOnly && (
          <ConfirmButton
            small
            danger
            label="Delete"
            ariaLabel={`Delete ${latest.name}`}
            question={`Delete “${latest.name}” and all ${plural(versions.length, 'version')} of it?`}
            confirmLabel="Delete"
            keepLabel="Keep"
            onConfirm={onDelete}
            testId="profile-delete"
          />
        )}
      </div>
    </li>
  );
}

/** Why a profile was not deleted, with the runs that use it one click away. */
function NotDeleted({ outcome }: { outcome: Extract<ProfileDeleteOutcome, { deleted: false }> }) {
  const runs = outcome.usedBy?.runs ?? [];
  const more = (outcome.usedBy?.run_count ?? 0) - runs.length;
  return (
    <div className="notice notice--error" role="alert" data-testid="profiles-notice">
      <p>{outcome.text}</p>
      {runs.length > 0 && (
        <ul className="plain-list" data-testid="profile-used-by-runs">
          {runs.map((r) => (
            <li key={r.run_id}>
              <a href={routeHref({ name: 'run', runId: r.run_id, tab: 'rounds' })}>
                {r.name} · {formatDateTime(r.started_at)}
              </a>
            </li>
          ))}
          {more > 0 && <li className="muted">and {plural(more, 'more run')}</li>}
        </ul>
      )}
    </div>
  );
}

/** Profiles by kind with their versions; create, edit (new version), duplicate, delete; export and import. */
export function ProfilesSection() {
  const { db, client } = useHost();
  const rows = useLiveQuery(() => db.profiles.toArray(), [db]);
  const [refused, setRefused] = useState<Extract<ProfileDeleteOutcome, { deleted: false }>>();
  const remove = async (row: ProfileRow) => {
    setNotice(undefined);
    setRefused(undefined);
    const outcome = await deleteProfile(db, client, row);
    if (outcome.deleted) setNotice({ tone: 'ok', lines: [outcome.text] });
    else setRefused(outcome);
  };
  const workflows = useLiveQuery(() => db.workflows.toArray(), [db], []);
  const [editing, setEditing] = useState<Editing>();
  const [notice, setNotice] = useState<{ tone: 'ok' | 'error'; lines: string[] }>();
  const fileRef = useRef<HTMLInputElement>(null);

  const exportAll = async () => {
    const bundle = await exportBundle(db);
    downloadText(bundleFileName(), `${JSON.stringify(bundle, null, 2)}\n`, 'application/json');
    setNotice({ tone: 'ok', lines: [`Exported ${plural(bundle.profiles.length, 'profile version')}. Credentials are references only: the keys stay in the keychain.`] });
  };

  const importFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    const parsed = parseBundle(await file.text());
    if (!parsed.ok) {
      setNotice({ tone: 'error', lines: [`${file.name} was not imported:`, ...parsed.errors] });
      return;
    }
    const report: ImportReport = await importBundle(db, parsed.bundle);
    setNotice({
      tone: report.conflicts.length ? 'error' : 'ok',
      lines: [
        `${file.name}: ${plural(report.added.length, 'profile version')} imported, ${report.unchanged.length} already here.`,
        ...report.conflicts.map((c) => c.message),
      ],
    });
  };

  // A duplicate opens as a new profile with the same settings; nothing is stored until it is created.
  const duplicate = (row: ProfileRow) =>
    setEditing({ initial: { ...settingsOf(toProfile(row)), name: uniqueProfileName(rows ?? [], row.kind, `${row.name} (copy)`), description: row.description } as ProfileInput });

  return (
    <section className="card settings-section" aria-labelledby="profiles-title" data-testid="profiles-section">
      <header className="settings-section__head">
        <h2 id="profiles-title" className="settings-section__title">
          Profiles
        </h2>
        <span className="round__spacer" />
        <button type="button" className="button" onClick={() => void exportAll()} data-testid="profiles-export">
          Export all…
        </button>
        <button type="button" className="button" onClick={() => fileRef.current?.click()} data-testid="profiles-import">
          Import…
        </button>
        <input ref={fileRef} type="file" accept="application/json,.json" hidden onChange={(e) => void importFile(e)} data-testid="profiles-import-file" />
      </header>
      <p className="settings-section__intro">Named settings a workflow’s Supervision &amp; Learning panel picks from. A version never changes: editing saves the next version, and every run records the versions it used. Built-in profiles are read-only: duplicate one to change it. Names are unique within each kind.</p>
      <ProfileConflicts />
      {refused && <NotDeleted outcome={refused} />}
      {notice && (
        <div className={notice.tone === 'error' ? 'notice notice--error' : 'notice'} role={notice.tone === 'error' ? 'alert' : 'status'} data-testid="profiles-notice">
          {notice.lines.map((l, i) => (
            <p key={i}>{l}</p>
          ))}
        </div>
      )}
      {editing && (
        <ProfileEditor
          key={`${editing.base?.id ?? 'new'}-${editing.base?.version ?? 0}-${editing.initial.kind}`}
          base={editing.base}
          initial={editing.initial}
          onDone={(saved) => {
            setEditing(undefined);
            if (saved) setNotice({ tone: 'ok', lines: [`Saved ${saved.name} v${saved.version}.`] });
          }}
        />
      )}
      {rows === undefined ? (
        <p className="muted">Loading…</p>
      ) : (
        PROFILE_KINDS.map((kind: ProfileKind) => {
          const ofKind = rows.filter((r) => r.kind === kind);
          const latest = latestOfEach(ofKind);
          return (
            <div key={kind} className="profile-kind" data-testid="profile-kind" data-kind={kind}>
              <div className="profile-kind__head">
                <h3 className="settings-section__subtitle">{PROFILE_KIND_LABELS[kind]}</h3>
                <button type="button" className="link-button" onClick={() => setEditing({ initial: newProfileInput(kind) })} data-testid={`profile-new-${kind}`}>
                  + New
                </button>
              </div>
              {latest.length === 0 ? (
                <p className="muted">None yet.</p>
              ) : (
                <ul className="profile-list">
                  {latest.map((row) => (
                    <ProfileItem
                      key={row.id}
                      latest={row}
                      versions={ofKind.filter((r) => r.id === row.id).sort((a, b) => a.version - b.version)}
                      origin={profileOriginLabel(row, workflows)}
                      onEdit={() => setEditing({ base: row, initial: { ...settingsOf(toProfile(row)), name: row.name, description: row.description } as ProfileInput })}
                      onDuplicate={() => duplicate(row)}
                      onDelete={() => remove(row)}
                    />
                  ))}
                </ul>
              )}
            </div>
          );
        })
      )}
    </section>
  );
}
