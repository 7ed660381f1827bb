import { useId, useState } from 'react';
import type { RegisteredServer, Workspace } from '@shared/contracts/host-registry';
import { routeHref } from '../../app/routing';
import { FieldRow, TextField } from '../../components/Form';
import { uniqueId, type Draft } from './graph-edit';
import { ProblemLines } from './ProblemsList';
import { idIssue, nameIssue, notSaidByFields } from './field-words';
import { workflowIdFor } from './id-follows-name';
import { WorkflowTraceChoice } from './WorkflowTraceChoice';
import { SupervisorSettingsSection } from '../../workflow-supervisor/SupervisorSettingsSection';

/** With no node selected: the workflow's own settings — name, id, workspace and the servers its nodes name. */
export function WorkflowPanel({
  draft,
  servers,
  workspaces,
  problems,
  onChange,
  saved = false,
}: {
  draft: Draft;
  servers: readonly RegisteredServer[];
  workspaces: readonly Workspace[];
  problems: readonly string[];
  onChange: (next: Draft, group?: string) => void;
  /** Stored under its id already: the id no longer follows the name (the CLI and runs know it). */
  saved?: boolean;
}) {
  const id = useId();
  const [adding, setAdding] = useState('');
  const [name, setName] = useState('');
  const taken = draft.servers.map((s) => s.id);
  const placeholder = adding ? uniqueId(adding, taken) : 'name';
  const add = () => {
    const reg = servers.find((s) => s.id === adding);
    if (!reg) return;
    const as = (name.trim() || uniqueId(reg.id, taken)).toLowerCase();
    onChange({ ...draft, servers: [...draft.servers, { id: as, server: reg.id }] });
    setAdding('');
    setName('');
  };
  return (
    <aside className="wf-inspector" data-testid="inspector" aria-label="Workflow settings">
      <header className="wf-inspector__head">
        <h2 className="wf-inspector__title">Workflow</h2>
      </header>
      <ProblemLines problems={notSaidByFields(problems, [nameIssue(draft.name, { required: true }), idIssue(draft.id)])} testId="workflow-problems" />
      <TextField id={`${id}-name`} label="Name" value={draft.name} onChange={(v) => onChange({ ...draft, name: v, id: saved ? draft.id : workflowIdFor(draft.id, draft.name, v) }, 'wf-name')} issue={nameIssue(draft.name, { required: true })} testId="workflow-name" />
      <TextField id={`${id}-id`} label="Id" value={draft.id} onChange={(v) => onChange({ ...draft, id: v }, 'wf-id')} hint="Its file name in the data folder and its name for the CLI (steward run ID)." issue={idIssue(draft.id)} testId="workflow-id" />
      <TextField id={`${id}-desc`} label="Description" multiline value={draft.description} onChange={(v) => onChange({ ...draft, description: v }, 'wf-desc')} testId="workflow-description" />
      <FieldRow label="Workspace" htmlFor={`${id}-ws`} hint="The folder its servers work in (${workspace} in their arguments).">
        <select id={`${id}-ws`} className="select" value={draft.workspace ?? ''} onChange={(e) => onChange(e.target.value === '' ? withoutWorkspace(draft) : { ...draft, workspace: e.target.value })} data-testid="workflow-workspace">
          <option value="">none</option>
          {draft.workspace !== undefined && !workspaces.some((w) => w.id === draft.workspace) && <option value={draft.workspace}>{draft.workspace} (not registered)</option>}
          {workspaces.map((w) => (
            <option key={w.id} value={w.id}>
              {w.label} ({w.id})
            </option>
          ))}
        </select>
      </FieldRow>
      <fieldset className="wf-ports" data-testid="workflow-servers">
        <legend className="wf-ports__title">Servers</legend>
        {draft.servers.length === 0 && <p className="muted">None: tool and agent nodes use the servers added here.</p>}
        {draft.servers.map((s) => (
          <div key={s.id} className="wf-ports__row" data-testid={`workflow-server-${s.id}`}>
            <code>{s.id}</code>
            <span className="muted">{servers.find((r) => r.id === s.server)?.label ?? `${s.server} (not registered)`}</span>
            <button type="button" className="button button--small" aria-label={`Remove server ${s.id}`} onClick={() => onChange({ ...draft, servers: draft.servers.filter((r) => r.id !== s.id) })}>
              ✕
            </button>
          </div>
        ))}
        {servers.length === 0 ? (
          <p className="muted">
            No server is registered on this host: add one in the <a href={routeHref({ name: 'registry' })}>MCP registry</a>.
          </p>
        ) : (
          <div className="wf-ports__row wf-ports__row--add">
            <select className="select wf-server-pick" aria-label="Registered server to add" value={adding} onChange={(e) => setAdding(e.target.value)} data-testid="workflow-server-pick">
              <option value="">Add a registered server…</option>
              {servers.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.label} ({s.id})
                </option>
              ))}
            </select>
            <input
              className="input input--small input--fit"
              aria-label="Name in this workflow"
              placeholder={placeholder}
              // As wide as what it holds (its name, else the name it would get), never a clipped few letters.
              size={Math.max(6, (name || placeholder).length + 1)}
              value={name}
              onChange={(e) => setName(e.target.value)}
              data-testid="workflow-server-name"
            />
            <button type="button" className="button button--small" disabled={!adding} onClick={add} data-testid="workflow-server-add">
              Add
            </button>
          </div>
        )}
      </fieldset>
      <SupervisorSettingsSection value={draft.supervisor} nodes={draft.nodes} onChange={(supervisor, group) => onChange({ ...draft, supervisor }, group)} />
      <WorkflowTraceChoice workflowId={draft.id} />
    </aside>
  );
}

function withoutWorkspace(draft: Draft): Draft {
  const { workspace: _gone, ...rest } = draft;
  return rest;
}
