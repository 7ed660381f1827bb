import { PHASE_LABELS } from '@shared/contracts/spec';
import { useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { ModelRef } from '@shared/contracts/model';
import type { RunOverrides } from '@shared/contracts/host-api';
import type { McpServerSpec } from '@shared/contracts/spec';
import { useHost } from '../app/HostProvider';
import { navigate } from '../app/routing';
import type { WorkflowRow } from '../db/db';
import { ModelSelect } from '../components/ModelSelect';
import { Switch } from '../components/Switch';
import { Chip } from '../components/Chip';
import { Spinner } from '../components/Icons';

function serverLabel(server: McpServerSpec): string {
  return server.package ?? server.command ?? server.id;
}

function WorkflowCard({ row }: { row: WorkflowRow }) {
  const { client, db, connection, providers } = useHost();
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string>();
  const doc = row.doc;
  const student = row.student ?? doc.models.student;
  const teacher = row.teacher ?? doc.models.teacher;

  const update = (changes: Partial<WorkflowRow>) => {
    void db.workflows.update(row.id, { ...changes, updated_at: new Date().toISOString() });
  };

  const run = async () => {
    setStarting(true);
    setError(undefined);
    const overrides: RunOverrides = { supervision_enabled: row.supervision_enabled };
    if (row.student) overrides.student = row.student;
    if (row.teacher) overrides.teacher = row.teacher;
    try {
      const { run_id } = await client.request('run.start', { workflow: doc, overrides });
      navigate({ name: 'run', runId: run_id, tab: 'rounds' });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setStarting(false);
    }
  };

  return (
    <article className="card workflow" data-testid="workflow-card" data-workflow-id={row.id} aria-labelledby={`wf-${row.id}`}>
      <header className="workflow__head">
        <div>
          <h2 id={`wf-${row.id}`} className="workflow__name">
            {row.name}
          </h2>
          {doc.description && <p className="workflow__description">{doc.description}</p>}
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
          <dd>
            Phase {doc.supervision.phase} · {PHASE_LABELS[doc.supervision.phase]} · up to {doc.limits.max_rounds} rounds
          </dd>
        </div>
      </dl>

      <div className="workflow__controls">
        <Switch
          label="Supervision"
          description={row.supervision_enabled ? 'Teacher reviews what matters' : 'Student acts alone; protected effects are blocked, never run unreviewed'}
          checked={row.supervision_enabled}
          onChange={(next) => update({ supervision_enabled: next })}
          testId="supervision-toggle"
        />
        <div className="workflow__models">
          <ModelSelect role="Student" value={student} providers={providers} onChange={(ref: ModelRef) => update({ student: ref })} />
          <ModelSelect role="Teacher" value={teacher} providers={providers} onChange={(ref: ModelRef) => update({ teacher: ref })} />
        </div>
      </div>

      <footer className="workflow__foot">
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="button" className="button button--primary" data-testid="run-button" onClick={() => void run()} disabled={starting || connection !== 'open'}>
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
