import { useRef, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { importSummary } from '@shared/history/import-summary';
import { useHost } from '../../app/HostProvider';
import { downloadText } from '../../view/download';
import { count, plural } from '../../view/format';
import { runsJsonl } from './runs-jsonl';
import { deleteRunsEverywhere, importTraceFiles } from './run-transfer';
import { childRunIdsOf } from './child-run-ids';

type Status = { kind: 'info' | 'error'; text: string } | { kind: 'progress'; done: number; total: number };

/** importSummary's words as a sentence on the page. */
const sentence = (words: string) => `${words.charAt(0).toUpperCase()}${words.slice(1)}.`;

/**
 * The runs list's actions: import JSONL traces (exports, CLI --trace files), and for the selected
 * runs export them as JSONL or delete them (confirmed; from the host's history too).
 */
export function RunsActions({ selected, onDeleted }: { selected: readonly string[]; onDeleted: () => void }) {
  const { client, db, connection } = useHost();
  const fileRef = useRef<HTMLInputElement>(null);
  const [status, setStatus] = useState<Status>();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const open = connection === 'open';
  // Child runs of the selected ones (workflows they ran, issue 29): deleted with them; an export offers them.
  const children = useLiveQuery(() => (selected.length === 0 ? [] : childRunIdsOf(db, selected)), [db, selected]) ?? [];
  const [withChildren, setWithChildren] = useState(true);
  const exported = withChildren ? [...selected, ...children] : selected;
  const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

  const onFiles = async (input: HTMLInputElement) => {
    const files = [...(input.files ?? [])];
    input.value = '';
    if (files.length === 0) return;
    setBusy(true);
    try {
      const texts = await Promise.all(files.map(async (f) => ({ name: f.name, text: await f.text() })));
      const outcome = await importTraceFiles(client, texts, (done, total) => setStatus({ kind: 'progress', done, total }));
      setStatus(
        outcome.ok
          ? { kind: 'info', text: sentence(importSummary(outcome)) }
          : { kind: 'error', text: outcome.message },
      );
    } catch (err) {
      setStatus({ kind: 'error', text: `The import stopped: ${messageOf(err)}. What was sent before stays imported; importing the file again skips it.` });
    } finally {
      setBusy(false);
    }
  };

  const exportSelected = async () => {
    try {
      const text = await runsJsonl(db, exported, (run_id, after_seq) => client.request('runs.events', { run_id, after_seq }));
      downloadText(`steward-runs-${new Date().toISOString().slice(0, 10)}.jsonl`, text, 'application/x-ndjson');
      const chained = exported.length > selected.length ? ` and ${plural(exported.length - selected.length, 'child run')}` : '';
      setStatus({ kind: 'info', text: `Exported ${plural(selected.length, 'run')}${chained}.` });
    } catch (err) {
      setStatus({ kind: 'error', text: `Could not export: ${messageOf(err)}` });
    }
  };

  const remove = async () => {
    setConfirming(false);
    setBusy(true);
    try {
      // A run's child runs are part of it: they go with it (the host deletes them too).
      const deleted = await deleteRunsEverywhere(client, db, [...selected, ...children]);
      onDeleted();
      setStatus({ kind: 'info', text: `Deleted ${plural(deleted, 'run')}.` });
    } catch (err) {
      setStatus({ kind: 'error', text: `Nothing was deleted: ${messageOf(err)}` });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="runs-actions" data-testid="runs-actions">
      <div className="runs-actions__buttons">
        <button type="button" className="button" onClick={() => fileRef.current?.click()} disabled={!open || busy} data-testid="import-runs">
          Import…
        </button>
        <input ref={fileRef} type="file" multiple accept=".jsonl,.ndjson,application/x-ndjson,application/jsonl,text/plain" hidden onChange={(e) => void onFiles(e.currentTarget)} data-testid="import-runs-file" />
        <button type="button" className="button" onClick={() => void exportSelected()} disabled={selected.length === 0 || busy} data-testid="export-runs">
          Export JSONL
        </button>
        <button type="button" className="button button--danger" onClick={() => setConfirming(true)} disabled={selected.length === 0 || !open || busy} data-testid="delete-runs">
          Delete…
        </button>
        <span className="muted" data-testid="runs-selected">
          {selected.length > 0 ? `${selected.length} selected` : 'Select runs to export or delete them.'}
        </span>
        {children.length > 0 && (
          <label className="muted" data-testid="export-with-children">
            <input type="checkbox" checked={withChildren} onChange={(e) => setWithChildren(e.currentTarget.checked)} /> Export with their {plural(children.length, 'child run')}
          </label>
        )}
      </div>
      {status?.kind === 'progress' && (
        <p className="muted" role="status" data-testid="runs-import-progress">
          <progress max={status.total} value={status.done} /> Importing… {count(status.done)} of {plural(status.total, 'part')}
        </p>
      )}
      {status?.kind === 'info' && (
        <p className="muted" role="status" data-testid="runs-action-status">
          {status.text}
        </p>
      )}
      {status?.kind === 'error' && (
        <p className="error" role="alert" data-testid="runs-action-error">
          {status.text}
        </p>
      )}
      {confirming && (
        <div className="wf-dialog-backdrop">
          <div
            className="wf-dialog card"
            role="alertdialog"
            aria-modal="true"
            aria-labelledby="delete-runs-title"
            aria-describedby="delete-runs-what"
            data-testid="delete-runs-dialog"
            onKeyDown={(e) => {
              if (e.key === 'Escape') setConfirming(false);
            }}
          >
            <h2 id="delete-runs-title" className="wf-dialog__title">
              Delete {plural(selected.length, 'run')}
              {children.length > 0 ? ` and ${selected.length === 1 ? 'its' : 'their'} ${plural(children.length, 'child run')}` : ''}?
            </h2>
            <p id="delete-runs-what">
              Their traces and learning examples are deleted from the host’s history (its journal) too, and from every browser showing Steward. A run that is running or waiting for
              you cannot be deleted. Export them first to keep a copy.
              {children.length > 0 &&
                ` ${children.length === 1 ? 'The child run is' : `The ${children.length} child runs are`} part of ${selected.length === 1 ? 'it' : 'them'} (workflows ${selected.length === 1 ? 'it' : 'they'} ran), so ${children.length === 1 ? 'it goes' : 'they go'} too.`}
            </p>
            <div className="wf-dialog__actions">
              <button type="button" className="button" onClick={() => setConfirming(false)} autoFocus data-testid="cancel-delete-runs">
                Cancel
              </button>
              <button type="button" className="button button--danger" onClick={() => void remove()} data-testid="confirm-delete-runs">
                Delete {plural(selected.length + children.length, 'run')}
              </button>
            </div>
          </div>
        </div>
      )}
    </div>
  );
}
