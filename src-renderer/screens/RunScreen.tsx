import { useMemo, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { RunEvent } from '@shared/contracts/events';
import { useHost } from '../app/HostProvider';
import { routeHref } from '../app/routing';
import { runEvents, type RunRow } from '../db/db';
import { deriveRounds } from '../db/derive-rounds';
import { StatusBadge } from '../components/Chip';
import { Spinner } from '../components/Icons';
import { formatDateTime, formatDuration, plural } from '../view/format';
import { RoundCard } from './RoundCard';
import { TraceList } from './TraceList';

const NO_EVENTS: RunEvent[] = [];

function RunHeader({ run }: { run: RunRow }) {
  const { client, connection } = useHost();
  const [cancelling, setCancelling] = useState(false);
  const [error, setError] = useState<string>();
  const cancel = async () => {
    setCancelling(true);
    setError(undefined);
    try {
      await client.request('run.cancel', { run_id: run.run_id });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setCancelling(false);
    }
  };
  const duration = formatDuration(run.started_at, run.finished_at);
  return (
    <header className="run-head">
      <div className="run-head__title">
        <a className="crumb" href={routeHref({ name: 'runs' })}>
          Runs
        </a>
        <h1 className="page__title">{run.spec_name}</h1>
        <StatusBadge status={run.status} testId="run-status" />
        <span className="round__spacer" />
        {run.status === 'running' && (
          <button type="button" className="button button--danger" data-testid="cancel-button" onClick={() => void cancel()} disabled={cancelling || connection !== 'open'}>
            {cancelling ? 'Cancelling…' : 'Cancel run'}
          </button>
        )}
      </div>
      <dl className="run-head__facts">
        <div>
          <dt>Student</dt>
          <dd>
            <code>{run.models.student}</code>
          </dd>
        </div>
        <div>
          <dt>Teacher</dt>
          <dd>
            <code>{run.models.teacher}</code>
          </dd>
        </div>
        <div>
          <dt>Supervision</dt>
          <dd data-testid="run-supervision">{run.supervision_enabled ? 'On' : 'Off'}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatDateTime(run.started_at)}</dd>
        </div>
        <div>
          <dt>Rounds</dt>
          <dd>{run.rounds}</dd>
        </div>
        {duration && (
          <div>
            <dt>Took</dt>
            <dd>{duration}</dd>
          </div>
        )}
      </dl>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </header>
  );
}

function FinalPanel({ run }: { run: RunRow }) {
  if (run.status === 'running') return null;
  const complete = run.event_count !== undefined && run.stored_events >= run.event_count;
  return (
    <section className={`card final final--${run.status}`} data-testid="run-final" aria-label="Run result">
      <header className="final__head">
        <h2 className="final__title">Result</h2>
        <StatusBadge status={run.status} />
        <span className="round__spacer" />
        <span className="muted" title="Events stored in this browser / events the run emitted">
          {complete ? `trace complete · ${plural(run.stored_events, 'event')}` : `${run.stored_events} of ${run.event_count ?? '?'} events stored`}
        </span>
      </header>
      {run.output && (
        <pre className="final__output" data-testid="run-output">
          {run.output}
        </pre>
      )}
      {run.message && <p className="final__message">{run.message}</p>}
      {!run.output && !run.message && <p className="muted">The run ended without output.</p>}
    </section>
  );
}

export function RunScreen({ runId, tab }: { runId: string; tab: 'rounds' | 'trace' }) {
  const { db } = useHost();
  const run = useLiveQuery(() => db.runs.get(runId), [db, runId]);
  const events = useLiveQuery(() => runEvents(db, runId), [db, runId], NO_EVENTS);
  const rounds = useMemo(() => deriveRounds(events), [events]);

  return (
    <div className="page page--run">
      {run ? (
        <RunHeader run={run} />
      ) : (
        <header className="run-head">
          <div className="run-head__title">
            <a className="crumb" href={routeHref({ name: 'runs' })}>
              Runs
            </a>
            <h1 className="page__title">Starting run…</h1>
          </div>
        </header>
      )}

      {run?.task && (
        <section className="task" aria-label="Task">
          <span className="task__label">Task</span>
          <p className="task__text">{run.task}</p>
        </section>
      )}

      <div className="tabs" role="tablist" aria-label="Run views">
        <a role="tab" aria-selected={tab === 'rounds'} className="tab" href={routeHref({ name: 'run', runId, tab: 'rounds' })}>
          Rounds <span className="tab__count">{rounds.length}</span>
        </a>
        <a role="tab" aria-selected={tab === 'trace'} className="tab" href={routeHref({ name: 'run', runId, tab: 'trace' })} data-testid="trace-tab">
          Trace <span className="tab__count">{events.length}</span>
        </a>
      </div>

      {tab === 'trace' ? (
        <TraceList events={events} />
      ) : (
        <div className="rounds" data-testid="rounds">
          {rounds.map((view) => (
            <RoundCard key={view.round} view={view} />
          ))}
          {rounds.length === 0 && (!run || run.status === 'running') && (
            <div className="empty empty--inline" data-testid="rounds-waiting">
              <Spinner /> Waiting for the first round…
            </div>
          )}
          {run && <FinalPanel run={run} />}
        </div>
      )}
    </div>
  );
}
