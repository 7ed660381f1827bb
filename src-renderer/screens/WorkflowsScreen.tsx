import { PHASE_LABELS } from '@shared/contracts/spec';
import { useLiveQuery } from 'dexie-react-hooks';
import type { ModelRef } from '@shared/contracts/model';
import type { HostedServerRef } from '@shared/contracts/hosted-workflow';
import { useHost } from '../app/HostProvider';
import { routeHref } from '../app/routing';
import type { ProfileChoice, WorkflowRow } from '../db/db';
import { pickModel, setProfileChoices, setSupervisionEnabled } from '../db/workflow-profiles';
import { profileLabel } from '../db/profiles';
import { useRunAndOpen, useWorkflowConfig } from '../supervision/use-workflow-config';
import { ModelSelect } from '../components/ModelSelect';
import { Switch } from '../components/Switch';
import { Chip } from '../components/Chip';
import { Spinner } from '../components/Icons';
import { scsSettingsOf } from '../db/workflow-scs';
import { SCS_MODE_SHORT } from '../view/scs-labels';
import { UserWorkflows } from './editor/UserWorkflows';
import { useWaiting } from './interventions/use-waiting';
import { WaitingChip } from './interventions/WaitingChip';

/** A workflow names registered servers by id. */
function serverLabel(server: HostedServerRef): string {
  return server.server;
}

function WorkflowCard({ row }: { row: WorkflowRow }) {
  const { db, connection, providers } = useHost();
  const config = useWorkflowConfig(row);
  const { run: runAndOpen, starting, error, setError } = useRunAndOpen();
  const waiting = useWaiting().byWorkflow.get(row.id) ?? 0;
  const doc = row.doc;
  const resolved = config?.resolved;
  const student = resolved?.student?.model ?? row.student ?? doc.models.student;
  const teacher = resolved?.teacher?.model ?? row.teacher ?? doc.models.teacher;
  const phase = resolved?.deployment?.deployment.phase ?? doc.supervision.phase;
  const scsMode = scsSettingsOf(doc).mode;

  /** A model picked here becomes the role's model profile (found or made), like a choice in the panel. */
  const pick = async (role: 'student' | 'teacher', ref: ModelRef) => {
    try {
      await pickModel(db, row.id, role, ref);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };

  /**
   * One of the user's model profiles picked here becomes the role's choice as it is; a profile of
   * the other role lends its model (a profile of this role is found or made for it).
   */
  const choose = async (role: 'student' | 'teacher', choice: ProfileChoice) => {
    try {
      const profile = await db.profiles.get([choice.id, choice.version]);
      if (!profile) throw new Error(`the profile ${choice.id} v${choice.version} is no longer stored here`);
      if (profile.kind === role) await setProfileChoices(db, row.id, { [role]: choice });
      else if (profile.kind === 'student' || profile.kind === 'teacher') await pickModel(db, row.id, role, profile.model);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };

  const run = () => runAndOpen(row, config);

  return (
    <article className="card workflow" data-testid="workflow-card" data-workflow-id={row.id} aria-labelledby={`wf-${row.id}`}>
      <header className="workflow__head">
        <div>
          <h2 id={`wf-${row.id}`} className="workflow__name">
            <a href={routeHref({ name: 'workflow', workflowId: row.id })} data-testid="workflow-open">
              {row.name}
            </a>
          </h2>
          {doc.description && <p className="workflow__description">{doc.description}</p>}
          <WaitingChip count={waiting} />
        </div>
        {row.source === 'demo' && <Chip tone="accent">Demo</Chip>}
      </header>

      <dl className="meta">
        <div className="meta__row">
          <dt>Servers</dt>
          <dd>
            {doc.servers.length === 0 ? (
              <span className="muted">none</span>
            ) : (
              doc.servers.map((s) => (
                <code key={s.id} className="tag" title={serverLabel(s)}>
                  {s.id}
                </code>
              ))
            )}
          </dd>
        </div>
        <div className="meta__row">
          <dt>Policy</dt>
          <dd data-testid="workflow-policy">
            Phase {phase} · {PHASE_LABELS[phase]} · up to {doc.limits.max_rounds} rounds
            {resolved?.supervision && <span className="muted"> · {profileLabel(resolved.supervision)}</span>}
          </dd>
        </div>
        <div className="meta__row">
          <dt>SCS</dt>
          <dd data-testid="workflow-scs" data-mode={scsMode}>
            <a
              className={`scs-card-mode scs-card-mode--${scsMode}`}
              href={`${routeHref({ name: 'workflow', workflowId: row.id })}`}
              title="SCS task gates: change in Supervision & Learning"
              aria-label={`SCS task gates ${SCS_MODE_SHORT[scsMode]}: change in Supervision & Learning`}
            >
              {SCS_MODE_SHORT[scsMode]}
            </a>
          </dd>
        </div>
      </dl>

      <div className="workflow__controls">
        <Switch
          label="Supervision"
          description={row.supervision_enabled ? 'Teacher reviews what matters' : 'Student acts alone; protected effects are blocked, never run unreviewed'}
          checked={row.supervision_enabled}
          onChange={(next) => void setSupervisionEnabled(db, row.id, next)}
          testId="supervision-toggle"
        />
        <div className="workflow__models">
          <ModelSelect role="Student" value={student} providers={providers} onChange={(ref: ModelRef) => void pick('student', ref)} onProfile={(choice) => void choose('student', choice)} profile={row.profiles?.student} disabled={!config} />
          <ModelSelect role="Teacher" value={teacher} providers={providers} onChange={(ref: ModelRef) => void pick('teacher', ref)} onProfile={(choice) => void choose('teacher', choice)} profile={row.profiles?.teacher} disabled={!config} />
        </div>
      </div>

      <footer className="workflow__foot">
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <a className="button" href={routeHref({ name: 'workflow', workflowId: row.id })} aria-label={`Supervision & Learning for ${row.name}`} data-testid="configure-button">
          Supervision &amp; Learning
        </a>
        <button type="button" className="button button--primary" data-testid="run-button" aria-label={starting ? `Starting ${row.name}…` : `Run ${row.name}`} onClick={() => void run()} disabled={starting || connection !== 'open' || !config}>
          {starting ? <Spinner /> : <span aria-hidden="true">▶</span>}
          {starting ? 'Starting…' : 'Run'}
        </button>
      </footer>
    </article>
  );
}

export function WorkflowsScreen() {
  const { db, connection } = useHost();
  const rows = useLiveQuery(() => db.workflows.orderBy('name').toArray(), [db]);

  return (
    <div className="page">
      <header className="page__head">
        <div>
          <h1 className="page__title">Workflows</h1>
          <p className="page__subtitle">A student model proposes, a teacher reviews what matters, and nothing runs until it crosses the decision boundary.</p>
        </div>
      </header>
      <UserWorkflows />
      <header className="section-head">
        <h2 className="section-head__title">Demo workflows</h2>
      </header>
      {rows === undefined ? (
        <p className="muted">Loading…</p>
      ) : rows.length === 0 ? (
        <div className="empty" data-testid="workflows-empty">
          <h2>No workflows yet</h2>
          <p>{connection === 'open' ? 'The demo workspace is being loaded from the host…' : 'The demo workspace is loaded from the host as soon as it is connected.'}</p>
        </div>
      ) : (
        <div className="grid">
          {rows.map((row) => (
            <WorkflowCard key={row.id} row={row} />
          ))}
        </div>
      )}
    </div>
  );
}
