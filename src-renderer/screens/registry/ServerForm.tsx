import { useId, useState, type FormEvent } from 'react';
import type { RegisteredServer } from '@shared/contracts/host-registry';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import { useCredentialNames } from '../../supervision/use-workflow-config';
import { emptyServerForm, formFromServer, registerablePackages, serverRegistrationFromForm, type FormProblem, type OAuthGrantChoice, type ServerForm as FormState } from './server-form';
import { CredentialField } from './CredentialField';
import { CredentialPicker } from './CredentialPicker';
import { EnterpriseIdpFields, keychainNote } from './EnterpriseIdpFields';
import { FieldProblem, FormFooter, problemProps, TextField } from './FormParts';
import { SignInWayChoice } from './SignInWayChoice';
import { useRegistryAction } from './use-registry-action';
import { CheckField } from '../../components/Form';

const REMOTE_HINT = 'Streamable HTTP (older HTTP+SSE servers work too). Runs reach it only if the privacy policy allows its host; this machine always is.';

/** What the sign-in client's id is, for each way of signing in. */
const CLIENT_ID_HINT = {
  browser: 'Leave empty and Steward registers itself with the server’s sign-in provider when you click Sign in. Fill in only if the provider issued a client for Steward beforehand.',
  machine: 'The client the server’s sign-in provider registered for this machine-to-machine use.',
  enterprise: 'Steward’s client at the server’s authorization server: it presents the grant from your identity provider with it.',
} as const satisfies Record<OAuthGrantChoice, string>;

/**
 * Add or edit a server of the user's. Env values are picked from the keychain's credential names
 * (or a name is typed): the form has no field a secret's value could go in. Registering goes through
 * the explicit-action flow: the host asks a person (native dialog or terminal code) before it runs.
 */
export function ServerForm({ servers, editing, onDone, onCancel }: { servers: readonly RegisteredServer[]; editing?: RegisteredServer; onDone: (message: string) => void; onCancel: () => void }) {
  const { client, connection } = useHost();
  const { names, error: namesError, unavailable: keychainUnavailable } = useCredentialNames();
  const { busy, failure, clearFailure, panel, perform } = useRegistryAction();
  const uid = useId();
  const packages = registerablePackages(servers);
  const [form, setForm] = useState<FormState>(() => (editing ? formFromServer(editing) : { ...emptyServerForm(), package: packages[0]?.package ?? '', args: packages[0]?.args.join('\n') ?? '' }));
  const [typing, setTyping] = useState<boolean[]>(() => form.env.map(() => false));
  const [problems, setProblems] = useState<FormProblem[]>([]);
  const fid = (field: string) => `${uid}-${field.replaceAll('.', '-')}`;
  const problem = (field: string) => problems.find((p) => p.field === field)?.message;
  const set = (patch: Partial<FormState>) => setForm((f) => ({ ...f, ...patch }));
  const remote = form.kind === 'url';
  const setEnv = (index: number, patch: Partial<FormState['env'][number]>) => setForm((f) => ({ ...f, env: f.env.map((r, i) => (i === index ? { ...r, ...patch } : r)) }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    clearFailure();
    const result = serverRegistrationFromForm(form, { servers, editing: editing?.id });
    setProblems(result.ok ? [] : result.problems);
    if (!result.ok) {
      document.getElementById(fid(result.problems[0]?.field ?? 'id'))?.focus();
      return;
    }
    const { id } = result.registration;
    await perform(
      () => client.request('servers.register', { server: result.registration, replace: editing !== undefined }),
      () => onDone(editing ? `Saved “${id}”: workflows using it start it this way from their next run.` : `Registered “${id}”. Inspect it to see its tools.`),
    );
  };

  return (
    // The confirmation panel is a form of its own: kept outside this one (a nested form's submit
    // would bubble into this form's and register again).
    <>
    <form className="card server-form" onSubmit={(e) => void submit(e)} data-testid="server-form" aria-label={editing ? `Edit the server ${editing.id}` : 'Add a server'} autoComplete="off" noValidate>
      <h2 className="server-form__title">{editing ? `Edit ${editing.id}` : 'Add an MCP server'}</h2>
      <div className="server-form__grid">
        <TextField
          id={fid('id')}
          label="Id"
          value={form.id}
          onChange={(id) => set({ id })}
          placeholder="my-server"
          testId="server-id"
          readOnly={editing !== undefined}
          autoFocus={!editing}
          problem={problem('id')}
          hint={editing ? 'The id workflows use; it stays.' : 'What workflows call it: lowercase letters, digits, - and _.'}
        />
        <TextField id={fid('label')} label="Label" value={form.label} onChange={(label) => set({ label })} placeholder="My notes server" testId="server-label" problem={problem('label')} />
      </div>

      <fieldset className="server-form__kind">
        <legend className="field__label">Starts from</legend>
        <label className="inline-check">
          <input type="radio" name={`${uid}-kind`} checked={form.kind === 'package'} onChange={() => set({ kind: 'package' })} data-testid="server-kind-package" />A package shipped with Steward
        </label>
        <label className="inline-check">
          <input type="radio" name={`${uid}-kind`} checked={form.kind === 'command'} onChange={() => set({ kind: 'command' })} data-testid="server-kind-command" />A command
        </label>
        <label className="inline-check">
          <input type="radio" name={`${uid}-kind`} checked={form.kind === 'url'} onChange={() => set({ kind: 'url' })} data-testid="server-kind-url" />Remote (URL)
        </label>
      </fieldset>

      {form.kind === 'package' ? (
        <div className="field">
          <label className="field__label" htmlFor={fid('package')}>
            Package
          </label>
          <select
            id={fid('package')}
            className="select"
            value={form.package}
            onChange={(e) => {
              const shipped = packages.find((p) => p.package === e.target.value);
              const previous = packages.find((p) => p.package === form.package);
              // Arguments still as shipped (or none) follow the package chosen, e.g. the filesystem server's ${workspace}.
              const untouched = form.args.trim() === '' || (previous !== undefined && form.args === previous.args.join('\n'));
              set({ package: e.target.value, ...(untouched && shipped ? { args: shipped.args.join('\n') } : {}) });
            }}
            data-testid="server-package"
            {...problemProps(fid('package'), problem('package'))}
          >
            {!packages.some((p) => p.package === form.package) && <option value={form.package}>{form.package || 'Choose a package…'}</option>}
            {packages.map((p) => (
              <option key={p.package} value={p.package}>
                {p.package} ({p.label})
              </option>
            ))}
          </select>
          <FieldProblem id={fid('package')} message={problem('package')} hint="Steward runs its own copy with Node; any other package is registered by its command (e.g. npx -y NAME)." />
        </div>
      ) : form.kind === 'url' ? (
        <TextField id={fid('url')} label="URL" value={form.url} onChange={(url) => set({ url })} placeholder="https://mcp.example.com/mcp" testId="server-url" problem={problem('url')} hint={REMOTE_HINT} />
      ) : (
        <TextField id={fid('command')} label="Command" value={form.command} onChange={(command) => set({ command })} placeholder="npx" testId="server-command" problem={problem('command')} hint="The program, on the host’s PATH or a full path. It runs as you." />
      )}

      {form.kind !== 'url' && (
        <div className="field">
          <label className="field__label" htmlFor={fid('args')}>
            Arguments
          </label>
          <textarea id={fid('args')} className="input input--area" rows={3} value={form.args} onChange={(e) => set({ args: e.target.value })} spellCheck={false} placeholder={'-y\n@scope/server\n${workspace}'} data-testid="server-args" {...problemProps(fid('args'), problem('args'))} />
          <FieldProblem id={fid('args')} message={problem('args')} hint={<>One per line. <code>{'${workspace}'}</code> is the run’s registered workspace folder. Keys never go here: use the environment below.</>} />
        </div>
      )}

      <fieldset className="server-form__env">
        <legend className="field__label">{remote ? 'Headers (credentials from the keychain)' : 'Environment (credentials from the keychain)'}</legend>
        {form.env.length === 0 && <p className="muted">{remote ? 'No headers. A server that needs a token gets it here, as a keychain reference holding the whole value (e.g. “Bearer …”).' : 'No variables. A server that needs a key gets it here, as a keychain reference.'}</p>}
        {form.env.map((row, i) => {
          const field = `env.${i}`;
          return (
            <div key={i} className="env-row" role="group" aria-label={`${remote ? 'Header' : 'Variable'} ${i + 1}`}>
              <input className="input env-row__key" aria-label={remote ? 'Header name' : 'Variable name'} value={row.key} onChange={(e) => setEnv(i, { key: e.target.value })} placeholder={remote ? 'Authorization' : 'API_KEY'} spellCheck={false} data-testid={`server-env-key-${i}`} />
              <span aria-hidden="true">{remote ? ':' : '='}</span>
              <code className="env-row__prefix">keychain:</code>
              <CredentialPicker
                id={fid(field)}
                value={row.credential}
                onChange={(credential) => setEnv(i, { credential })}
                names={names}
                typing={typing[i] ?? false}
                onTyping={() => setTyping((t) => Object.assign([...t], { [i]: true }))}
                emptyLabel="Pick a credential…"
                selectTestId={`server-env-credential-${i}`}
                inputTestId={`server-env-name-${i}`}
                problem={problem(field)}
              />
              <button
                type="button"
                className="button button--small"
                onClick={() => {
                  setForm((f) => ({ ...f, env: f.env.filter((_, j) => j !== i) }));
                  setTyping((t) => t.filter((_, j) => j !== i));
                  setProblems([]);
                }}
                aria-label={`Remove ${remote ? 'header' : 'variable'} ${row.key || i + 1}`}
              >
                Remove
              </button>
              <FieldProblem id={fid(field)} message={problem(field)} />
            </div>
          );
        })}
        <div className="server-form__env-actions">
          <button
            type="button"
            className="button button--small"
            onClick={() => {
              set({ env: [...form.env, { key: '', credential: '' }] });
              setTyping((t) => [...t, false]);
            }}
            data-testid="server-env-add"
          >
            {remote ? 'Add header' : 'Add variable'}
          </button>
          <span className="muted">
            {keychainUnavailable ? `${keychainUnavailable} You can still type a credential’s name. ` : namesError ? 'Could not list the keychain’s credentials; type a name. ' : names?.length === 0 ? 'No credentials stored yet. ' : ''}
            {!keychainUnavailable && (
              <>
                Store a key in <a href={routeHref({ name: 'settings' })}>Settings → Credentials</a>, then pick it here.
              </>
            )}
          </span>
        </div>
      </fieldset>

      {remote && (
        <fieldset className="server-form__env" data-testid="server-oauth">
          <legend className="field__label">Sign-in client (OAuth, optional)</legend>
          <SignInWayChoice name={`${uid}-grant`} value={form.oauthGrant} onChange={(oauthGrant) => set({ oauthGrant })} />
          <TextField
            id={fid('oauth.client_id')}
            label={form.oauthGrant === 'enterprise' ? 'Client id at the server' : 'Client id'}
            value={form.oauthClientId}
            onChange={(oauthClientId) => set({ oauthClientId })}
            placeholder="issued by the sign-in provider"
            testId="server-oauth-client-id"
            problem={problem('oauth.client_id')}
            hint={CLIENT_ID_HINT[form.oauthGrant]}
          />
          <CredentialField
            id={fid('oauth.client_secret')}
            group="Client secret"
            label={form.oauthGrant === 'enterprise' ? 'Client secret at the server' : 'Client secret'}
            value={form.oauthSecret}
            onChange={(oauthSecret) => set({ oauthSecret })}
            names={names}
            emptyLabel="No secret (a public client)"
            ariaLabel="Client secret credential"
            testId="server-oauth-secret"
            problem={problem('oauth.client_secret')}
            hint={keychainNote(form.oauthSecret, names, 'the secret') ?? 'Only if the provider gave the client a secret: store it in Settings → Credentials and pick its name.'}
          />
          {form.oauthGrant === 'machine' && (
            <CredentialField
              id={fid('oauth.private_key')}
              group="Private key"
              label="Private key (instead of a secret)"
              value={form.oauthPrivateKey}
              onChange={(oauthPrivateKey) => set({ oauthPrivateKey })}
              names={names}
              emptyLabel="No private key (the client uses its secret)"
              ariaLabel="Private key credential"
              testId="server-oauth-key"
              problem={problem('oauth.private_key')}
              hint="A PEM private key (PKCS#8) the provider knows the public half of: Steward signs an ES256 JWT with it. Store it in Settings → Credentials and pick its name."
            />
          )}
          {form.oauthGrant === 'enterprise' && <EnterpriseIdpFields values={form} onChange={set} names={names} fid={fid} problem={problem} />}
        </fieldset>
      )}

      <fieldset className="server-form__env" data-testid="server-trust-field">
        <legend className="field__label">What it returns</legend>
        <CheckField
          id={fid('trust')}
          label="Trusted: only I write what this server returns"
          hint="Off (the default): what it returns may be written by others (a file, a page, a stored note), so a tool call carrying a value copied from it is sent to the teacher, even at phase 4, and its cards say where the value came from."
          checked={form.trusted}
          onChange={(trusted) => set({ trusted })}
          testId="server-trusted"
        />
      </fieldset>

      {problems.length > 0 && (
        <p className="error" role="alert">
          {problems.length === 1 ? 'One field needs a change' : `${problems.length} fields need a change`}: nothing was registered.
        </p>
      )}
      <FormFooter failure={failure} failureTestId="server-form-error" busy={busy} disabled={connection !== 'open'} submitLabel={editing ? 'Save' : 'Register server'} submitTestId="save-server" onCancel={onCancel} />
    </form>
    {panel}
    </>
  );
}
