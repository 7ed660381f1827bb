import { useId, useState, type FormEvent } from 'react';
import type { Workspace } from '@shared/contracts/host-registry';
import { useHost } from '../../app/HostProvider';
import { Chip } from '../../components/Chip';
import { useExplicitAction } from '../../components/ExplicitAction';
import { useHostRegistry } from '../../host/use-host-registry';
import { FormFooter, TextField } from './FormParts';
import { useRegistryAction } from './use-registry-action';
import { RemoveButton } from './RemoveButton';
import { hostErrorText, workspaceRegistrationFromForm, type FormProblem, type WorkspaceForm } from './server-form';

const EMPTY: WorkspaceForm = { id: '', label: '', path: '' };

function AddWorkspaceForm({ workspaces, onDone, onCancel }: { workspaces: readonly Workspace[]; onDone: (message: string) => void; onCancel: () => void }) {
  const { client, connection } = useHost();
  const { busy, failure, clearFailure, panel, perform } = useRegistryAction();
  const uid = useId();
  const [form, setForm] = useState<WorkspaceForm>(EMPTY);
  const [problems, setProblems] = useState<FormProblem[]>([]);
  const fid = (field: string) => `${uid}-${field}`;
  const problem = (field: string) => problems.find((p) => p.field === field)?.message;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    clearFailure();
    const result = workspaceRegistrationFromForm(form, workspaces);
    setProblems(result.ok ? [] : result.problems);
    if (!result.ok) {
      document.getElementById(fid(result.problems[0]?.field ?? 'id'))?.focus();
      return;
    }
    // Outside the data folder the host asks a person first (native dialog or terminal code).
    await perform(
      () => client.request('workspaces.register', { workspace: result.registration }),
      () => onDone(`Registered the workspace “${result.registration.id}”.`),
    );
  };

  const input = (field: keyof WorkspaceForm, label: string, placeholder: string, hint?: string) => (
    <TextField id={fid(field)} label={label} value={form[field]} onChange={(value) => setForm({ ...form, [field]: value })} placeholder={placeholder} testId={`workspace-${field}`} autoFocus={field === 'id'} problem={problem(field)} hint={hint} />
  );

  // The confirmation panel is a form of its own: kept outside this one (see ServerForm).
  return (
    <>
    <form className="workspace-form" onSubmit={(e) => void submit(e)} aria-label="Add a workspace" data-testid="workspace-form" autoComplete="off" noValidate>
      <div className="server-form__grid">
        {input('id', 'Id', 'docs', 'What workflows call it.')}
        {input('label', 'Label (optional)', 'My documents')}
      </div>
      {input('path', 'Folder on the host', '/home/me/documents', 'An absolute path. Agents of workflows using this workspace can read and change what is in it: outside Steward’s data folder a person confirms.')}
      <FormFooter failure={failure} failureTestId="workspace-form-error" busy={busy} disabled={connection !== 'open'} submitLabel="Register workspace" submitTestId="save-workspace" onCancel={onCancel} />
    </form>
    {panel}
    </>
  );
}

/** The folders runs may work in (`${workspace}` of a server): listed, added, forgotten. */
export function WorkspacesSection({ workspaces }: { workspaces: readonly Workspace[] }) {
  const { client, connection } = useHost();
  const { refresh } = useHostRegistry();
  const action = useExplicitAction();
  const [adding, setAdding] = useState(false);
  const [status, setStatus] = useState<{ tone: 'ok' | 'error'; text: string }>();

  const remove = async (id: string) => {
    setStatus(undefined);
    try {
      const outcome = await action.run(() => client.request('workspaces.remove', { id }));
      await refresh();
      setStatus(outcome.status === 'denied' ? { tone: 'error', text: outcome.message } : { tone: 'ok', text: `Forgot the workspace “${id}”; its folder is untouched.` });
    } catch (err) {
      setStatus({ tone: 'error', text: hostErrorText(err) });
    }
  };

  return (
    <section className="card registry-workspaces" aria-labelledby="workspaces-title" data-testid="workspaces-section">
      <header className="registry-server__head">
        <div>
          <h2 id="workspaces-title" className="registry-server__title">
            Workspaces
          </h2>
          <p className="muted">Folders on the host a workflow may work in: a server’s <code>{'${workspace}'}</code> argument is the run’s workspace.</p>
        </div>
        <span className="round__spacer" />
        {!adding && (
          <button type="button" className="button" onClick={() => setAdding(true)} disabled={connection !== 'open'} data-testid="add-workspace">
            Add workspace
          </button>
        )}
      </header>
      {adding && (
        <AddWorkspaceForm
          workspaces={workspaces}
          onCancel={() => setAdding(false)}
          onDone={(text) => {
            setAdding(false);
            setStatus({ tone: 'ok', text });
          }}
        />
      )}
      {workspaces.length === 0 ? (
        <p className="muted" data-testid="workspaces-empty">
          No workspaces yet. Add the folder a workflow should work in; the demo registers its own copy when you run it.
        </p>
      ) : (
        <ul className="workspace-list">
          {workspaces.map((w) => (
            <li key={w.id} className="workspace-list__item" data-testid="workspace" data-workspace={w.id}>
              <code>{w.id}</code>
              <span>{w.label}</span>
              <code className="muted workspace-list__path">{w.path}</code>
              {w.in_data_folder && <Chip title="Inside Steward’s data folder">data folder</Chip>}
              <span className="round__spacer" />
              <RemoveButton what={`the workspace ${w.id}`} consequence="Workflows using it cannot run until they name another; the folder itself is untouched." testId={`remove-workspace-${w.id}`} disabled={connection !== 'open'} onRemove={() => remove(w.id)} />
            </li>
          ))}
        </ul>
      )}
      {action.panel}
      {status && (
        <p className={status.tone === 'error' ? 'error' : 'ok-text'} role={status.tone === 'error' ? 'alert' : 'status'} data-testid="workspaces-status">
          {status.text}
        </p>
      )}
    </section>
  );
}
