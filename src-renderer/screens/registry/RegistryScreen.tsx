import { useMemo, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { EFFECT_CLASSES, EFFECT_LABELS, isProtectedEffect, type ToolEffect } from '@shared/contracts/tool-effect';
import type { RegisteredServer } from '@shared/contracts/host-registry';
import type { DeprecatedFeature, SignInClient } from '@shared/contracts/mcp-revision';
import { DeprecatedFeatures, deprecatedShown } from './DeprecatedFeatures';
import { canonicalJson } from '@shared/util/canonical-json';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import type { RegistryRow } from '../../db/db';
import { serverIdentity, storeInspection, withHostEffects } from '../../db/registry';
import type { InspectedPrompt, InspectedResource } from '@shared/contracts/host-api';
import { ServerCatalog } from './ServerCatalog';
import { useHostRegistry } from '../../host/use-host-registry';
import { useExplicitAction } from '../../components/ExplicitAction';
import { describeHints, suggestionFromHints } from '../../supervision/annotation-suggestion';
import { Chip } from '../../components/Chip';
import { Spinner } from '../../components/Icons';
import { formatDateTime, plural } from '../../view/format';
import { RemoveButton } from './RemoveButton';
import { SignInButton } from './SignInButton';
import { signInWords } from './sign-in-words';
import { ServerForm } from './ServerForm';
import { ServerTrustControl } from './ServerTrustControl';
import { hostErrorText } from './server-form';
import { WorkspacesSection } from './WorkspacesSection';
import { InspectWhere } from './InspectWhere';

interface ServerGroup {
  identity: string;
  /** The registered server (on the host): what Inspect starts. */
  server: RegisteredServer;
  /** A registered workspace a workflow runs it in (its `${workspace}`), for Inspect. */
  workspace?: string;
  workflows: { id: string; name: string; serverId: string }[];
}

function EffectSummary({ effect }: { effect: ToolEffect }) {
  return (
    <span className={isProtectedEffect(effect.effect) ? 'effect effect--protected' : 'effect'}>
      {EFFECT_LABELS[effect.effect]}
      {effect.requires_user_confirmation && ' · asks you'}
      {effect.idempotency_supported && ' · idempotent'}
      {effect.sensitive_arguments.length > 0 && ` · masks ${effect.sensitive_arguments.join(', ')}`}
    </span>
  );
}

function ToolRow({ row }: { row: RegistryRow }) {
  const { client } = useHost();
  const { refresh } = useHostRegistry();
  const action = useExplicitAction();
  const inspected = row.inspected;
  const current: ToolEffect = row.user ?? inspected?.effect ?? { effect: 'unknown', requires_user_confirmation: false, idempotency_supported: false, sensitive_arguments: [] };
  const [draft, setDraft] = useState<ToolEffect>(current);
  const [status, setStatus] = useState<string>();
  const suggestion = suggestionFromHints(inspected?.hints);
  const properties = Object.keys((inspected?.input_schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
  const argNames = [...new Set([...properties, ...draft.sensitive_arguments])];
  const changed = canonicalJson(draft) !== canonicalJson(current) || (row.user === undefined && draft.effect !== current.effect);
  const source = row.user ? 'yours' : inspected?.effect_source === 'shipped' ? 'shipped' : inspected?.effect_source === 'user' ? 'workflow file' : inspected ? 'missing' : 'not inspected';
  const idBase = `reg-${row.server}-${row.tool}`.replace(/[^A-Za-z0-9_-]+/g, '-');
  // Undescribed tools open ready to describe; the rest stay a compact line until asked.
  const [editing, setEditing] = useState(source === 'missing');

  // The host holds the metadata: a change that makes the tool less protected waits for a person.
  const save = async (effect: ToolEffect | undefined, message: string) => {
    setStatus(undefined);
    try {
      const outcome = await action.run(() => client.request('effects.set', { server: row.server, tool: row.tool, effect: effect ?? null }));
      await refresh();
      if (outcome.status === 'denied') {
        setStatus(outcome.message);
        return;
      }
      setStatus(message);
      if (effect) setDraft(effect);
      else if (inspected) setDraft(inspected.effect);
    } catch (err) {
      setStatus(err instanceof Error ? err.message : String(err));
    }
  };

  return (
    <li className="tool-row" data-testid="registry-tool" data-tool={row.tool} data-source={source}>
      <div className="tool-row__head">
        <code className="tool-row__name">{row.tool}</code>
        {source === 'missing' ? (
          <Chip tone="escalated" title="Nobody described this tool, so it is protected: always reviewed">
            Protected (unknown)
          </Chip>
        ) : source === 'shipped' ? (
          <Chip title="Steward’s shipped default for this server">shipped</Chip>
        ) : source === 'yours' ? (
          <Chip tone="accent">yours</Chip>
        ) : (
          <Chip>{source}</Chip>
        )}
        <EffectSummary effect={current} />
        <span className="round__spacer" />
        <button type="button" className="link-button" aria-expanded={editing} aria-controls={`${idBase}-editor`} onClick={() => setEditing((e) => !e)} data-testid="registry-edit">
          {editing ? 'Close' : 'Edit metadata'}
        </button>
      </div>
      {inspected?.description && <p className="tool-row__description muted">{inspected.description}</p>}

      <div className="tool-row__editor" role="group" aria-label={`Effect metadata of ${row.tool}`} id={`${idBase}-editor`} hidden={!editing}>
        <div className="field">
          <label className="field__label" htmlFor={`${idBase}-effect`}>
            Effect
          </label>
          <select id={`${idBase}-effect`} className="select" value={draft.effect} onChange={(e) => setDraft({ ...draft, effect: e.target.value as ToolEffect['effect'] })} data-testid="registry-effect">
            {EFFECT_CLASSES.map((c) => (
              <option key={c} value={c}>
                {EFFECT_LABELS[c]}
              </option>
            ))}
          </select>
        </div>
        <label className="inline-check">
          <input type="checkbox" checked={draft.requires_user_confirmation} onChange={(e) => setDraft({ ...draft, requires_user_confirmation: e.target.checked })} data-testid="registry-confirm" />
          Requires your confirmation
        </label>
        <label className="inline-check">
          <input type="checkbox" checked={draft.idempotency_supported} onChange={(e) => setDraft({ ...draft, idempotency_supported: e.target.checked })} />
          Idempotent
        </label>
        <fieldset className="inline-fieldset">
          <legend className="field__label">Sensitive arguments (masked in traces and prompts)</legend>
          {argNames.length === 0 ? (
            <span className="muted">{inspected ? 'no arguments' : 'inspect to list arguments'}</span>
          ) : (
            argNames.map((arg) => (
              <label key={arg} className="inline-check">
                <input
                  type="checkbox"
                  checked={draft.sensitive_arguments.includes(arg)}
                  onChange={(e) => setDraft({ ...draft, sensitive_arguments: e.target.checked ? [...draft.sensitive_arguments, arg] : draft.sensitive_arguments.filter((a) => a !== arg) })}
                />
                <code>{arg}</code>
              </label>
            ))
          )}
        </fieldset>
        <div className="tool-row__actions">
          <button type="button" className="button button--small button--primary" disabled={!changed} onClick={() => void save(draft, 'Saved: every workflow using this server now runs with it.')} data-testid="registry-save">
            Save
          </button>
          {row.user && (
            <button type="button" className="button button--small" onClick={() => void save(undefined, inspected?.effect_source === 'shipped' ? 'Back to the shipped default.' : 'Removed your setting: the tool is protected until described.')}>
              {inspected?.effect_source === 'shipped' ? 'Use shipped default' : 'Remove my setting'}
            </button>
          )}
        </div>
      </div>

      {action.panel}
      {suggestion && (
        <div className="suggestion" data-testid="registry-suggestion">
          <span className="suggestion__label">Server’s annotations suggest</span> <EffectSummary effect={suggestion} />
          <span className="muted"> ({describeHints(inspected?.hints)}) — untrusted: the server describes itself.</span>
          {canonicalJson(suggestion) !== canonicalJson(current) && (
            <button type="button" className="button button--small" onClick={() => void save(suggestion, 'Adopted the suggestion as your setting.')} data-testid="registry-adopt">
              Adopt suggestion
            </button>
          )}
        </div>
      )}
      {status && (
        <p className="ok-text" role="status">
          {status}
        </p>
      )}
    </li>
  );
}

interface ServerCardProps {
  group: ServerGroup;
  rows: RegistryRow[];
  servers: readonly RegisteredServer[];
  /** Where the page says what an action did (removing a server unmounts its card). */
  onStatus: (status: { tone: 'ok' | 'error'; text: string }) => void;
}

function ServerCard({ group, rows, servers, onStatus }: ServerCardProps) {
  const { client, db, connection } = useHost();
  const { refresh } = useHostRegistry();
  const action = useExplicitAction();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [editing, setEditing] = useState(false);
  const [catalog, setCatalog] = useState<{ resources: InspectedResource[]; prompts: InspectedPrompt[] }>();
  /** The MCP protocol revision the server agreed on at the last Inspect. */
  const [revision, setRevision] = useState<string>();
  /** Features deprecated in MCP 2026-07-28 the server used at the last Inspect (an older server: still supported). */
  const [deprecated, setDeprecated] = useState<DeprecatedFeature[]>([]);
  /** How the client of the person's sign-in was obtained (a remote server; mcp.auth_status): a dynamic registration is marked as deprecated too. */
  const [signInClient, setSignInClient] = useState<SignInClient>();
  const id = group.server.id;
  const mine = group.server.source === 'user';
  const needsWorkspace = group.server.args.some((a) => a.includes('${workspace}'));
  const inspectedAt = rows.map((r) => r.inspected_at).filter((t): t is string => t !== undefined).sort().at(-1);

  const inspect = async () => {
    setBusy(true);
    setError(undefined);
    try {
      // The host starts its registered server (every tool, not only those a workflow offers) and
      // answers with Steward's own metadata: shipped or missing; yours comes from effects.list.
      const result = await client.request('mcp.inspect', { server: group.server.id, ...(group.workspace ? { workspace: group.workspace } : {}) });
      await storeInspection(db, group.identity, result.tools);
      setCatalog({ resources: result.resources ?? [], prompts: result.prompts ?? [] });
      setRevision(result.protocol_version);
      setDeprecated(result.deprecated_features ?? []);
    } catch (err) {
      setError(hostErrorText(err));
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    try {
      const outcome = await action.run(() => client.request('servers.remove', { id }));
      await refresh();
      onStatus(outcome.status === 'denied' ? { tone: 'error', text: outcome.message } : { tone: 'ok', text: `Removed the server “${id}”. Workflows that use it show it as unregistered until you pick another.` });
    } catch (err) {
      onStatus({ tone: 'error', text: hostErrorText(err) });
    }
  };

  return (
    <section className="card registry-server" aria-label={group.identity} data-testid="registry-server" data-server={group.identity}>
      <header className="registry-server__head">
        <div>
          <h2 className="registry-server__title">
            <code>{group.identity}</code> <span className="muted">{group.server.label}</span>
          </h2>
          <p className="muted">
            <code>{group.server.package ?? group.server.command ?? group.server.url}</code>
            {group.server.url !== undefined && ' (remote)'}
            {signInWords(group.server) !== undefined && <span data-testid={`sign-in-way-${id}`}> · {signInWords(group.server)}</span>}
            {group.server.args.length > 0 && <code> {group.server.args.join(' ')}</code>} · {group.server.source === 'shipped' ? 'ships with Steward' : 'registered by you'} ·{' '}
            <ServerTrustControl server={group.server} action={action} refresh={refresh} onStatus={onStatus} />
            {group.workflows.length > 0 && ' · used by '}
            {group.workflows.map((w, i) => (
              <span key={w.id}>
                {i > 0 && ', '}
                <a href={routeHref({ name: 'workflow', workflowId: w.id })}>{w.name}</a> <span className="muted">(as {w.serverId})</span>
              </span>
            ))}
            {inspectedAt && ` · inspected ${formatDateTime(inspectedAt)}`}
            {revision && (
              <span data-testid={`protocol-revision-${id}`} title="The MCP protocol revision this server and Steward agreed on when it was inspected">
                {' '}
                · speaks MCP {revision}
              </span>
            )}
          </p>
          <DeprecatedFeatures server={id} features={deprecatedShown(deprecated, signInClient)} />
        </div>
        <span className="round__spacer" />
        <div className="registry-server__actions">
          {mine && !editing && (
            <button type="button" className="button button--small" onClick={() => setEditing(true)} disabled={connection !== 'open'} data-testid={`edit-server-${id}`} aria-label={`Edit ${id}`}>
              Edit
            </button>
          )}
          {mine && <RemoveButton what={`the server ${id}`} consequence="Workflows using it cannot run until they name another." testId={`remove-server-${id}`} disabled={connection !== 'open'} onRemove={remove} />}
          {group.server.url !== undefined && <SignInButton server={id} onStatus={onStatus} onClient={setSignInClient} />}
          <button
            type="button"
            className="button"
            onClick={() => void inspect()}
            disabled={busy || connection !== 'open' || (needsWorkspace && !group.workspace)}
            data-testid={`inspect-server-${id}`}
            aria-describedby={needsWorkspace ? `${id}-inspect-where` : undefined}
          >
            {busy && <Spinner />}
            {busy ? 'Starting the server…' : rows.some((r) => r.inspected) ? 'Inspect again' : 'Inspect'}
          </button>
        </div>
      </header>
      {needsWorkspace && <InspectWhere id={`${id}-inspect-where`} workspace={group.workspace} />}
      {action.panel}
      {editing && (
        <ServerForm
          servers={servers}
          editing={group.server}
          onCancel={() => setEditing(false)}
          onDone={(text) => {
            setEditing(false);
            onStatus({ tone: 'ok', text });
          }}
        />
      )}
      {error && (
        <p className="error registry-server__error" role="alert" data-testid="registry-error">
          The server did not answer Inspect: {error}
        </p>
      )}
      {rows.length === 0 ? (
        <p className="muted">Inspect starts the server on the host (as the first workflow would) and lists its tools with their effect metadata and annotations.</p>
      ) : (
        <ul className="tool-list">
          {rows.map((r) => (
            <ToolRow key={`${r.tool}-${r.inspected_at ?? ''}`} row={r} />
          ))}
        </ul>
      )}
      {catalog && <ServerCatalog resources={catalog.resources} prompts={catalog.prompts} />}
    </section>
  );
}

/** `#/registry`: effect metadata per MCP server and tool, authoritative for every workflow using the server. */
export function RegistryScreen() {
  const { db, connection } = useHost();
  const workflows = useLiveQuery(() => db.workflows.orderBy('name').toArray(), [db]);
  const cached = useLiveQuery(() => db.registry.toArray(), [db]);
  const { state: host, error: hostError } = useHostRegistry();
  const [adding, setAdding] = useState(false);
  const [status, setStatus] = useState<{ tone: 'ok' | 'error'; text: string }>();
  const rows = useMemo(() => (cached && host ? withHostEffects(cached, host.overrides) : undefined), [cached, host]);
  const groups = useMemo(() => {
    const byIdentity = new Map<string, ServerGroup>((host?.servers ?? []).map((server) => [server.id, { identity: server.id, server, workflows: [] }]));
    for (const wf of workflows ?? []) {
      for (const ref of wf.doc.servers) {
        const group = byIdentity.get(serverIdentity(ref));
        if (!group) continue;
        group.workflows.push({ id: wf.id, name: wf.name, serverId: ref.id });
        group.workspace ??= wf.doc.workspace;
      }
    }
    // A server that needs a folder and no workflow gives one is inspected in the first registered workspace.
    for (const group of byIdentity.values()) {
      if (!group.workspace && group.server.args.some((a) => a.includes('${workspace}'))) group.workspace = host?.workspaces[0]?.id;
    }
    // Servers some workflow uses first, then the rest.
    return [...byIdentity.values()].sort((a, b) => Number(b.workflows.length > 0) - Number(a.workflows.length > 0));
  }, [workflows, host]);

  return (
    <div className="page" data-testid="registry-page">
      <header className="page__head">
        <h1 className="page__title">MCP registry</h1>
        <p className="page__subtitle">
          What each tool does, as Steward enforces it: your settings first, then Steward’s shipped defaults. Servers’ own annotations are only suggestions. A tool nobody described is protected
          (unknown): the teacher reviews every call.
        </p>
        {!adding && (
          <button type="button" className="button button--primary" onClick={() => setAdding(true)} disabled={connection !== 'open' || !host} data-testid="add-server">
            Add server
          </button>
        )}
      </header>
      {adding && host && (
        <ServerForm
          servers={host.servers}
          onCancel={() => setAdding(false)}
          onDone={(text) => {
            setAdding(false);
            setStatus({ tone: 'ok', text });
          }}
        />
      )}
      {status && (
        <p className={status.tone === 'error' ? 'error' : 'ok-text'} role={status.tone === 'error' ? 'alert' : 'status'} data-testid="registry-status">
          {status.text}
        </p>
      )}
      {hostError ? (
        <p className="error" role="alert">
          Could not read the host’s registry: {hostError}
        </p>
      ) : workflows === undefined || rows === undefined ? (
        <p className="muted">Loading…</p>
      ) : groups.length === 0 ? (
        <div className="empty">
          <h2>No servers yet</h2>
          <p>Add a server: a package shipped with Steward, any command, or a remote server by its URL. Steward’s shipped servers appear here once the host lists them.</p>
        </div>
      ) : (
        <div className="registry">
          {groups.map((g) => (
            <ServerCard key={g.identity} group={g} servers={host?.servers ?? []} onStatus={setStatus} rows={rows.filter((r) => r.server === g.identity).sort((a, b) => a.tool.localeCompare(b.tool))} />
          ))}
          <p className="muted">{plural(rows.filter((r) => r.user).length, 'tool')} with your own metadata.</p>
        </div>
      )}
      {host && <WorkspacesSection workspaces={host.workspaces} />}
    </div>
  );
}
