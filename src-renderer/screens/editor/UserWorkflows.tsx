import { useCallback, useEffect, useRef, useState, type ChangeEvent } from 'react';
import type { WorkflowSummary } from '@shared/workflow/hosted-graph';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import { downloadText } from '../../view/download';
import { formatDateTime } from '../../view/format';
import { uniqueId } from './graph-edit';
import { errorText } from './use-stored-workflow';
import { duplicateOf, exportText, parseWorkflowFile } from './workflow-file';
import { useWaiting } from '../interventions/use-waiting';
import { WaitingChip } from '../interventions/WaitingChip';
import { MessageText } from '../run/MessageText';

type Notice = { text: string; ok: boolean };

/** The user's own workflows, kept by the host in its data folder (the CLI sees the same ones). */
export function UserWorkflows() {
  const { client, connection } = useHost();
  const { byWorkflow: waiting } = useWaiting();
  const [list, setList] = useState<WorkflowSummary[]>();
  const [notice, setNotice] = useState<Notice>();
  const [deleting, setDeleting] = useState<WorkflowSummary>();
  const fileRef = useRef<HTMLInputElement>(null);
  const open = connection === 'open';

  const refresh = useCallback(
    () =>
      client.request('workflows.list', {}).then(
        (r) => setList([...r.workflows].sort((a, b) => a.name.localeCompare(b.name))),
        (err: unknown) => setNotice({ text: `Could not list your workflows: ${errorText(err)}`, ok: false }),
      ),
    [client],
  );
  useEffect(() => {
    if (open) void refresh();
  }, [open, refresh]);

  const taken = () => (list ?? []).map((w) => w.id);
  const act = async (what: () => Promise<string>) => {
    try {
      setNotice({ text: await what(), ok: true });
    } catch (err) {
      setNotice({ text: errorText(err), ok: false });
    }
    await refresh();
  };

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    const parsed = parseWorkflowFile(await file.text(), file.name);
    if (!parsed.ok) {
      setNotice({ text: `Nothing imported: ${parsed.error}`, ok: false });
      return;
    }
    await act(async () => {
      const id = uniqueId(parsed.workflow.id, taken());
      await client.request('workflows.save', { workflow: { ...parsed.workflow, id } });
      return id === parsed.workflow.id ? `Imported “${parsed.workflow.name}”.` : `Imported “${parsed.workflow.name}” as ${id} (the id ${parsed.workflow.id} was taken).`;
    });
  };

  const duplicate = (w: WorkflowSummary) =>
    act(async () => {
      const { workflow } = await client.request('workflows.get', { id: w.id });
      const copy = duplicateOf(workflow, taken());
      await client.request('workflows.save', { workflow: copy });
      return `Duplicated as ${copy.id}.`;
    });

  const exportOne = (w: WorkflowSummary) =>
    act(async () => {
      const { workflow } = await client.request('workflows.get', { id: w.id });
      const { fileName, text } = exportText(workflow);
      downloadText(fileName, text, 'application/json');
      return `Exported ${fileName}.`;
    });

  const remove = (w: WorkflowSummary) => {
    setDeleting(undefined);
    void act(async () => {
      const r = await client.request('workflows.delete', { id: w.id });
      return r.deleted ? `Deleted “${w.name}”.` : `“${w.name}” was already gone.`;
    });
  };

  return (
    <section className="wf-list" aria-labelledby="your-workflows" data-testid="user-workflows">
      <header className="section-head">
        <h2 id="your-workflows" className="section-head__title">
          Your workflows
        </h2>
        <div className="wf-list__actions">
          {list && list.length > 0 && (
            <a className="button button--primary" href={routeHref({ name: 'workflow-new' })} data-testid="new-workflow">
              New
            </a>
          )}
          <button type="button" className="button" onClick={() => fileRef.current?.click()} disabled={!open} data-testid="import-workflow">
            Import…
          </button>
          <input ref={fileRef} type="file" accept=".json,application/json" hidden onChange={(e) => void onFile(e)} data-testid="import-workflow-file" />
        </div>
      </header>
      {notice && (
        <div className={notice.ok ? 'wf-notice wf-notice--ok' : 'wf-notice error'} role={notice.ok ? 'status' : 'alert'} data-testid="workflows-notice">
          <MessageText text={notice.text} />
        </div>
      )}
      {list === undefined ? (
        <p className="muted">{open ? 'Loading…' : 'Your workflows are listed once the host is connected.'}</p>
      ) : list.length === 0 ? (
        <div className="empty empty--inline" data-testid="user-workflows-empty">
          <p>No workflows of your own yet: build one in the editor, or import a .workflow.json.</p>
          <a className="button button--primary" href={routeHref({ name: 'workflow-new' })} data-testid="new-workflow">
            New workflow
          </a>
        </div>
      ) : (
        <ul className="wf-list__items">
          {list.map((w) => (
            <li key={w.id} className="card wf-list__item" data-testid="user-workflow" data-workflow-id={w.id}>
              <div className="wf-list__main">
                <a className="wf-list__name" href={routeHref({ name: 'workflow-edit', workflowId: w.id, run: false })}>
                  {w.name}
                </a>
                <span className="muted">
                  {' '}
                  <code>{w.id}</code> · {w.node_count} node{w.node_count === 1 ? '' : 's'} · saved {formatDateTime(w.updated_at)}
                </span>
                <WaitingChip count={waiting.get(w.id) ?? 0} />
                {w.description && <p className="workflow__description">{w.description}</p>}
              </div>
              <div className="wf-list__actions">
                <a className="button button--small" href={routeHref({ name: 'workflow-edit', workflowId: w.id, run: false })} aria-label={`Open ${w.name} in the editor`} data-testid={`open-workflow-${w.id}`}>
                  Open
                </a>
                <a className="button button--small button--primary" href={routeHref({ name: 'workflow-edit', workflowId: w.id, run: true })} aria-label={`Run ${w.name}`} data-testid={`run-workflow-${w.id}`}>
                  <span aria-hidden="true">▶</span> Run
                </a>
                <button type="button" className="button button--small" onClick={() => void duplicate(w)} aria-label={`Duplicate ${w.name}`} data-testid={`duplicate-workflow-${w.id}`}>
                  Duplicate
                </button>
                <button type="button" className="button button--small" onClick={() => void exportOne(w)} aria-label={`Export ${w.name}`} data-testid={`export-workflow-${w.id}`}>
                  Export
                </button>
                <button type="button" className="button button--small button--danger" onClick={() => setDeleting(w)} aria-label={`Delete ${w.name}`} data-testid={`delete-workflow-${w.id}`}>
                  Delete
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {deleting && (
        <div className="wf-dialog-backdrop">
          <div className="wf-dialog card" role="alertdialog" aria-modal="true" aria-labelledby="delete-title" data-testid="delete-dialog">
            <h2 id="delete-title" className="wf-dialog__title">
              Delete “{deleting.name}”?
            </h2>
            <p>Its file is removed from the host’s data folder; runs already made keep their traces. Export it first to keep a copy.</p>
            <div className="wf-dialog__actions">
              <button type="button" className="button" onClick={() => setDeleting(undefined)} autoFocus data-testid="cancel-delete">
                Cancel
              </button>
              <button type="button" className="button button--danger" onClick={() => remove(deleting)} data-testid="confirm-delete">
                Delete
              </button>
            </div>
          </div>
        </div>
      )}
    </section>
  );
}
