import { useId, useState } from 'react';
import type { HostParams } from '@shared/contracts/host-api';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import type { HostClient } from '../../host/host-client';
import type { StewardDb, WorkflowRow } from '../../db/db';
import { scsSettingsOf } from '../../db/workflow-scs';

export type ReplayTools = HostParams<'runs.replay'>['tools'];

/**
 * `runs.replay` for a run of this page's workflow: the workflow goes along as run.start sent it
 * (the host knows only the demos by id); the host checks it is still the one the run ran.
 */
export function replayParams(runId: string, tools: NonNullable<ReplayTools>, row: WorkflowRow | undefined): HostParams<'runs.replay'> {
  return { run_id: runId, tools, ...(row ? { workflow: { ...row.doc, scs: scsSettingsOf(row.doc) } } : {}) };
}

/** Starts the replay and says where the new run is. A workflow (graph) run's workflow is the one the host keeps. */
export async function startReplay(client: Pick<HostClient, 'request'>, db: Pick<StewardDb, 'workflows'>, runId: string, workflowId: string, tools: NonNullable<ReplayTools>, graph = false): Promise<string> {
  const row = graph ? undefined : await db.workflows.get(workflowId);
  const { run_id } = await client.request('runs.replay', replayParams(runId, tools, row));
  return run_id;
}

/**
 * "Replay…": runs this run again on its recorded model answers. A dry run by default (nothing
 * executes); live tools go through the boundary and authorization again, and are confirmed here
 * first. The new run opens; its page lists where its decisions differ.
 */
export function ReplayButton({ runId, workflowId, graph = false }: { runId: string; workflowId: string; graph?: boolean }) {
  const { client, db, connection } = useHost();
  const formId = useId();
  const [open, setOpen] = useState(false);
  const [tools, setTools] = useState<NonNullable<ReplayTools>>('dry_run');
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const replay = async () => {
    if (tools === 'live' && !confirming) {
      setConfirming(true);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const next = await startReplay(client, db, runId, workflowId, tools, graph);
      setOpen(false);
      window.location.hash = routeHref({ name: 'run', runId: next, tab: graph ? 'nodes' : 'rounds' });
    } catch (err) {
      setError(`Could not replay the run: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };

  return (
    <>
      <button type="button" className="button" data-testid="replay-button" aria-expanded={open} aria-controls={formId} onClick={() => setOpen(!open)} disabled={connection !== 'open'}>
        Replay…
      </button>
      <form
        id={formId}
        className="otlp-send"
        hidden={!open}
        aria-label="Replay this run on its recorded answers"
        onSubmit={(e) => {
          e.preventDefault();
          void replay();
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape') setOpen(false);
        }}
      >
        <fieldset className="field" data-testid="replay-tools">
          <legend className="field__label">Run again on the recorded model answers, with</legend>
          <label className="confirm">
            <input type="radio" name={`${formId}-tools`} value="dry_run" checked={tools === 'dry_run'} onChange={() => {
                setTools('dry_run');
                setConfirming(false);
              }} />
            {graph ? 'a dry run: no tool executes (tool nodes give back their recorded results)' : 'a dry run: no tool executes'}
          </label>{' '}
          <label className="confirm">
            <input type="radio" name={`${formId}-tools`} value="live" checked={tools === 'live'} onChange={() => setTools('live')} data-testid="replay-live" />
            live tools: the recorded decisions execute again
          </label>
        </fieldset>
        {confirming && (
          <p className="error" role="alert" data-testid="replay-live-warning">
            Live tools run the recorded tool calls again for real (files are written again). Each still goes through review and authorization, and you confirm what needs confirming.
          </p>
        )}
        <button type="submit" className={`button ${confirming ? 'button--danger' : 'button--primary'}`} disabled={busy || connection !== 'open'} data-testid="replay-submit">
          {busy ? 'Starting…' : confirming ? 'Yes, replay with live tools' : 'Replay'}
        </button>
        {error && (
          <span className="error" role="alert">
            {error}
          </span>
        )}
      </form>
    </>
  );
}
