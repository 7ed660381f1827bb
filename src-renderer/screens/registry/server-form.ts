import type { z } from 'zod';
import { CREDENTIAL_PREFIX, CredentialName, credentialNameOf } from '@shared/contracts/credentials';
import { RegistryId, ServerRegistration, WorkspaceRegistration, type RegisteredServer, type Workspace } from '@shared/contracts/host-registry';
import { McpServerSpec } from '@shared/contracts/spec';
import { checkModelUrl, inTheClearOffMachine } from '@shared/contracts/model-url';
import { EnterpriseIdp, ServerOAuthClient, ServerUrl } from '@shared/contracts/remote-server';
import { INSTALLED_SERVERS } from '@shared/policy/installed-servers';
import { holdsKnownKey, looksLikeRawSecret } from '@shared/policy/secrets';
import { HostRequestError } from '../../host/host-client';
import { issueInWords } from '../../view/issue-words';

/**
 * The registry page's forms as pure data: what a person typed, checked field by field, becomes the
 * host's ServerRegistration / WorkspaceRegistration or a list of problems named by field. An env
 * value is a credential's NAME (the form has no place for a value): the registration holds
 * `keychain:NAME`, and anything that looks like a key itself is refused before it leaves the page.
 */

export interface EnvRow {
  /** An environment variable's name; for a remote server, a header's name. */
  key: string;
  /** A credential's name in the host's keychain (a typed `keychain:NAME` is read as NAME). */
  credential: string;
}

/**
 * How a remote server's sign-in client gets its token: a person signs in through the browser
 * (authorization code, the default), a machine-to-machine client (client credentials), or the
 * organisation's identity provider vouches for the person (enterprise-managed, SEP-990).
 */
export type OAuthGrantChoice = 'browser' | 'machine' | 'enterprise';

export interface ServerForm {
  id: string;
  label: string;
  kind: 'package' | 'command' | 'url';
  package: string;
  command: string;
  /** A remote server's address (Streamable HTTP, or HTTP+SSE). */
  url: string;
  /** One argument per line; blank lines are dropped. */
  args: string;
  /** Environment variables; for a remote (`url`) server, its request headers. */
  env: EnvRow[];
  /** A remote server's OAuth client registered beforehand; empty: Steward registers itself when signing in. */
  oauthClientId: string;
  /** That client's secret: a credential's NAME in the keychain (empty: a public client). */
  oauthSecret: string;
  /** How the client gets its token; `machine`: nobody signs in (client_credentials); `enterprise`: through the organisation's identity provider. */
  oauthGrant: OAuthGrantChoice;
  /** A machine-to-machine client's private key (PEM) signing its JWT: a credential's NAME (instead of a secret). */
  oauthPrivateKey: string;
  /** Enterprise-managed: the organisation's identity provider's issuer (https, or http on this machine). */
  idpIssuer: string;
  /** Enterprise-managed: Steward's client id at the identity provider. */
  idpClientId: string;
  /** Enterprise-managed: that client's secret at the identity provider, a credential's NAME (empty: none). */
  idpSecret: string;
  /** Enterprise-managed: the person's ID token from the identity provider, a credential's NAME. */
  idpIdToken: string;
  /** The person alone writes what this server returns: values copied from its results are not sent to review (server-trust.ts). */
  trusted: boolean;
  /**
   * What the server's sign-in client has that this form does not show (its authorization server,
   * a machine client's signing algorithm, the identity provider's token endpoint): kept as it was
   * when the form is saved, never dropped by an edit.
   */
  oauthKept?: Pick<ServerOAuthClient, 'issuer' | 'signing_algorithm'> & { idpTokenEndpoint?: string; /** The file said `grant: "authorization_code"` (the default) in so many words. */ browserGrant?: true };
}

/**
 * `id`, `label`, `package`, `command`, `url`, `args`, `env.N` (the N-th env row), `oauth.client_id`,
 * `oauth.client_secret`, `oauth.private_key`, or an identity provider's `oauth.idp.issuer`,
 * `oauth.idp.client_id`, `oauth.idp.client_secret`, `oauth.idp.id_token`.
 */
export interface FormProblem {
  field: string;
  message: string;
}

export type FormResult<T> = { ok: true; registration: T } | { ok: false; problems: FormProblem[] };

export function emptyServerForm(): ServerForm {
  return { id: '', label: '', kind: 'package', package: '', command: '', url: '', args: '', env: [], oauthClientId: '', oauthSecret: '', oauthGrant: 'browser', oauthPrivateKey: '', idpIssuer: '', idpClientId: '', idpSecret: '', idpIdToken: '', trusted: false };
}

export function formFromServer(server: RegisteredServer): ServerForm {
  const kept = keptOAuth(server.oauth);
  const idp = server.oauth?.idp;
  return {
    id: server.id,
    label: server.label,
    kind: server.url !== undefined ? 'url' : server.package !== undefined ? 'package' : 'command',
    package: server.package ?? '',
    command: server.command ?? '',
    url: server.url ?? '',
    args: server.args.join('\n'),
    env: Object.entries(server.url !== undefined ? (server.headers ?? {}) : server.env).map(([key, ref]) => ({ key, credential: credentialNameOf(ref) })),
    oauthClientId: server.oauth?.client_id ?? '',
    oauthSecret: server.oauth?.client_secret === undefined ? '' : credentialNameOf(server.oauth.client_secret),
    oauthGrant: grantChoice(server.oauth?.grant),
    oauthPrivateKey: server.oauth?.private_key === undefined ? '' : credentialNameOf(server.oauth.private_key),
    idpIssuer: idp?.issuer ?? '',
    idpClientId: idp?.client_id ?? '',
    idpSecret: idp?.client_secret === undefined ? '' : credentialNameOf(idp.client_secret),
    idpIdToken: idp === undefined ? '' : credentialNameOf(idp.id_token),
    trusted: server.trust === 'trusted',
    ...(kept ? { oauthKept: kept } : {}),
  };
}

const GRANT_CHOICE = { authorization_code: 'browser', client_credentials: 'machine', enterprise_managed: 'enterprise' } as const satisfies Record<NonNullable<ServerOAuthClient['grant']>, OAuthGrantChoice>;

const grantChoice = (grant: ServerOAuthClient['grant']): OAuthGrantChoice => (grant === undefined ? 'browser' : GRANT_CHOICE[grant]);

/** The sign-in settings the form has no fields for, to carry through an edit (undefined: none). */
function keptOAuth(oauth: ServerOAuthClient | undefined): ServerForm['oauthKept'] {
  if (oauth === undefined) return undefined;
  const kept = {
    ...(oauth.issuer !== undefined ? { issuer: oauth.issuer } : {}),
    ...(oauth.signing_algorithm !== undefined ? { signing_algorithm: oauth.signing_algorithm } : {}),
    ...(oauth.idp?.token_endpoint !== undefined ? { idpTokenEndpoint: oauth.idp.token_endpoint } : {}),
    ...(oauth.grant === 'authorization_code' ? { browserGrant: true as const } : {}),
  };
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/** The packages Steward ships, once each, with the shipped entry's label and arguments as a start. */
export function shippedPackages(servers: readonly RegisteredServer[]): { package: string; label: string; args: string[] }[] {
  const seen = new Map<string, { package: string; label: string; args: string[] }>();
  for (const s of servers) {
    if (s.source === 'shipped' && s.package !== undefined && !seen.has(s.package)) seen.set(s.package, { package: s.package, label: s.label, args: s.args });
  }
  return [...seen.values()];
}

/**
 * What the form's package picker offers: the shipped servers' packages, then those installed with
 * Steward that a person registers with arguments of their own (PostgreSQL, PDF, sequential thinking).
 */
export function registerablePackages(servers: readonly RegisteredServer[]): { package: string; label: string; args: string[] }[] {
  const shipped = shippedPackages(servers);
  const installed = INSTALLED_SERVERS.filter((s) => !shipped.some((p) => p.package === s.package)).map((s) => ({ package: s.package, label: s.label, args: [...s.args] }));
  return [...shipped, ...installed];
}

const firstIssue = (error: z.ZodError): string => (error.issues[0] ? issueInWords(error.issues[0]) : 'This is not valid.');

function idProblem(id: string, taken: { id: string; shipped: boolean } | undefined, what: 'server' | 'workspace'): string | undefined {
  if (id === '') return `Give the ${what} an id: lowercase letters, digits, - and _.`;
  const parsed = RegistryId.safeParse(id);
  if (!parsed.success) return `“${id}”: ${firstIssue(parsed.error)}.`;
  if (taken?.shipped) return `“${id}” ships with Steward: pick another id.`;
  if (taken) return what === 'server' ? `“${id}” is already registered: pick another id, or Edit that server.` : `A workspace “${id}” is already registered: pick another id, or remove it first.`;
  return undefined;
}

/** A credential's name from what was typed, or why it cannot be one (never echoing a secret). */
function credentialProblem(typed: string): { name: string } | { problem: string } {
  const text = typed.trim().startsWith(CREDENTIAL_PREFIX) ? typed.trim().slice(CREDENTIAL_PREFIX.length) : typed.trim();
  if (text === '') return { problem: 'Pick a credential (add one in Settings → Credentials).' };
  if (looksLikeRawSecret(text)) {
    return { problem: 'This looks like a key itself, not a credential’s name: store the key in Settings → Credentials and pick its name here. Nothing was sent.' };
  }
  const name = CredentialName.safeParse(text);
  return name.success ? { name: name.data } : { problem: `Not a credential name: ${firstIssue(name.error)}. Add one in Settings → Credentials.` };
}

export function serverRegistrationFromForm(form: ServerForm, context: { servers: readonly RegisteredServer[]; editing?: string }): FormResult<ServerRegistration> {
  const problems: FormProblem[] = [];
  const id = form.id.trim();
  const existing = context.editing === id ? undefined : context.servers.find((s) => s.id === id);
  const idIssue = idProblem(id, existing && { id, shipped: existing.source === 'shipped' }, 'server');
  if (idIssue) problems.push({ field: 'id', message: idIssue });
  const label = form.label.trim() || id;

  if (form.kind === 'url') return remoteRegistrationFromForm(form, id, label, problems);
  const launch: { package: string } | { command: string } = form.kind === 'package' ? { package: form.package.trim() } : { command: form.command.trim() };
  if ('package' in launch && launch.package === '') problems.push({ field: 'package', message: 'Pick a package shipped with Steward, or register the server by its command.' });
  else if ('package' in launch && !registerablePackages(context.servers).some((p) => p.package === launch.package)) {
    problems.push({ field: 'package', message: `${launch.package} does not ship with Steward: register it by its command (e.g. npx -y ${launch.package}).` });
  }
  if ('command' in launch && launch.command === '') problems.push({ field: 'command', message: 'Give the command that starts the server (e.g. node, npx, uvx or a full path).' });

  const args = form.args
    .split('\n')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  // The host's launch rules (no raw secret, no credential in args), said per line before sending.
  const argsCheck = McpServerSpec.safeParse({ id: 'form', command: 'x', args });
  if (!argsCheck.success) {
    const issue = argsCheck.error.issues.find((i) => i.path[0] === 'args');
    if (issue) problems.push({ field: 'args', message: `Argument on line ${Number(issue.path[1] ?? 0) + 1}: ${issue.message}.` });
  }

  const env: Record<string, string> = {};
  form.env.forEach((row, index) => {
    const field = `env.${index}`;
    const key = row.key.trim();
    const credential = credentialProblem(row.credential);
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(key)) problems.push({ field, message: key === '' ? 'Name the environment variable (e.g. API_KEY).' : `“${key}” is not an environment variable name (letters, digits and _, not starting with a digit).` });
    else if (key in env) problems.push({ field, message: `${key} is set twice: keep one.` });
    else if ('problem' in credential) problems.push({ field, message: credential.problem });
    else env[key] = `${CREDENTIAL_PREFIX}${credential.name}`;
  });

  if (problems.length > 0) return { ok: false, problems };
  const checked = ServerRegistration.safeParse({ id, label, ...launch, args, env, ...trustOfForm(form) });
  if (!checked.success) return { ok: false, problems: checked.error.issues.map((i) => ({ field: String(i.path[0] ?? 'id'), message: issueInWords(i) })) };
  return { ok: true, registration: checked.data };
}

/** Trusted only when the person says so; absent is untrusted (the default every server starts with). */
const trustOfForm = (form: Pick<ServerForm, 'trusted'>): { trust?: 'trusted' } => (form.trusted ? { trust: 'trusted' } : {});

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/;

/** A remote server: its address, and headers whose values are credentials' names (never a value). */
function remoteRegistrationFromForm(form: ServerForm, id: string, label: string, problems: FormProblem[]): FormResult<ServerRegistration> {
  const url = form.url.trim();
  const urlCheck = ServerUrl.safeParse(url);
  if (url === '') problems.push({ field: 'url', message: 'Give the server’s address, e.g. https://mcp.example.com/mcp.' });
  else if (!urlCheck.success) problems.push({ field: 'url', message: `${firstIssue(urlCheck.error)}.` });
  const headers: Record<string, string> = {};
  form.env.forEach((row, index) => {
    const field = `env.${index}`;
    const name = row.key.trim();
    const credential = credentialProblem(row.credential);
    if (!HEADER_NAME.test(name)) problems.push({ field, message: name === '' ? 'Name the header (e.g. Authorization).' : `“${name}” is not an HTTP header name.` });
    else if (Object.keys(headers).some((h) => h.toLowerCase() === name.toLowerCase())) problems.push({ field, message: `${name} is set twice: keep one.` });
    else if ('problem' in credential) problems.push({ field, message: credential.problem });
    else headers[name] = `${CREDENTIAL_PREFIX}${credential.name}`;
  });
  const oauth = oauthFromForm(form, headers, problems);
  if (problems.length > 0) return { ok: false, problems };
  const checked = ServerRegistration.safeParse({ id, label, url, headers, ...(oauth ? { oauth } : {}), ...trustOfForm(form) });
  if (!checked.success) return { ok: false, problems: checked.error.issues.map((i) => ({ field: remoteField(i.path), message: issueInWords(i) })) };
  return { ok: true, registration: checked.data };
}

const OAUTH_FIELDS = new Set(['oauth.client_id', 'oauth.client_secret', 'oauth.private_key', 'oauth.idp.issuer', 'oauth.idp.client_id', 'oauth.idp.client_secret', 'oauth.idp.id_token']);

/** A contract issue's path as the form's field: headers on the first row, oauth on its own field (else its client id). */
function remoteField(path: readonly PropertyKey[]): string {
  if (path[0] === 'headers') return 'env.0';
  if (path[0] === 'oauth') {
    const field = path.slice(0, path[1] === 'idp' ? 3 : 2).map(String).join('.');
    return OAUTH_FIELDS.has(field) ? field : 'oauth.client_id';
  }
  return String(path[0] ?? 'id');
}

/**
 * The sign-in client registered beforehand, checked by the registry's own contract: its id, and its
 * secret only as a credential's name (a pasted secret is refused here, before it leaves the page).
 * Neither given for a browser sign-in: undefined, and Steward registers itself with the server when
 * signing in. A machine-to-machine or an enterprise-managed client always needs its id.
 */
function oauthFromForm(form: ServerForm, headers: Record<string, string>, problems: FormProblem[]): ServerOAuthClient | undefined {
  const grant = form.oauthGrant;
  const machine = grant === 'machine';
  const clientId = form.oauthClientId.trim();
  const typedSecret = form.oauthSecret.trim();
  const typedKey = machine ? form.oauthPrivateKey.trim() : '';
  if (clientId === '' && typedSecret === '' && typedKey === '' && grant === 'browser') return undefined;
  const before = problems.length;
  const secret = typedSecret === '' ? undefined : credentialProblem(typedSecret);
  if (secret !== undefined && 'problem' in secret) problems.push({ field: 'oauth.client_secret', message: secret.problem });
  const key = typedKey === '' ? undefined : credentialProblem(typedKey);
  if (key !== undefined && 'problem' in key) problems.push({ field: 'oauth.private_key', message: key.problem });
  if (machine && secret === undefined && key === undefined) problems.push({ field: 'oauth.client_secret', message: 'A machine-to-machine client proves itself with its secret or its private key: pick the credential that holds one.' });
  if (machine && secret !== undefined && key !== undefined) problems.push({ field: 'oauth.private_key', message: 'Pick the client’s secret or its private key, not both.' });
  const idp = grant === 'enterprise' ? idpFromForm(form, problems) : undefined;
  if (clientId === '') {
    problems.push({
      field: 'oauth.client_id',
      message: grant === 'enterprise' ? 'Give the client id the server’s authorization server issued for Steward: it presents your identity provider’s grant with it.' : 'Give the client id the server’s sign-in provider issued for this secret, or clear the secret.',
    });
    return undefined;
  }
  const idCheck = ServerOAuthClient.shape.client_id.safeParse(clientId);
  if (!idCheck.success) problems.push({ field: 'oauth.client_id', message: `Client id: ${firstIssue(idCheck.error)}.` });
  // The run's sign-in is skipped for a server that sends its own Authorization header (usesOAuth).
  else if (Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) {
    problems.push({ field: 'oauth.client_id', message: 'This server sends its own Authorization header, so it never signs in with OAuth: remove the header or the client id.' });
  }
  if (problems.length > before || (secret !== undefined && 'problem' in secret) || (key !== undefined && 'problem' in key)) return undefined;
  // What the form does not show stays as it was, where it still applies to the grant chosen.
  const kept = form.oauthKept;
  return {
    client_id: clientId,
    ...(secret !== undefined ? { client_secret: `${CREDENTIAL_PREFIX}${secret.name}` } : {}),
    ...(machine ? { grant: 'client_credentials' as const } : grant === 'enterprise' ? { grant: 'enterprise_managed' as const } : kept?.browserGrant ? { grant: 'authorization_code' as const } : {}),
    ...(key !== undefined ? { private_key: `${CREDENTIAL_PREFIX}${key.name}` } : {}),
    ...(machine && key !== undefined && kept?.signing_algorithm !== undefined ? { signing_algorithm: kept.signing_algorithm } : {}),
    ...(kept?.issuer !== undefined ? { issuer: kept.issuer } : {}),
    ...(idp !== undefined ? { idp } : {}),
  };
}

/**
 * Why an identity provider's issuer cannot be used, in words (undefined: it can). The person's ID
 * token is sent there: https, or http only on this machine (loopback), read by the same strict
 * pattern as the server's own address, and no query (an issuer names itself without one).
 */
export function idpIssuerProblem(issuer: string): string | undefined {
  if (issuer === '') return 'Give your identity provider’s issuer: the address it signs you in from, e.g. https://login.example.com.';
  const check = checkModelUrl(issuer);
  if (!check.ok) return `The issuer ${check.problem.replace(" and set the model's api_key to keychain:NAME", '')}.`;
  if (inTheClearOffMachine(check.parts)) {
    return 'The issuer must be an https:// address: your ID token is sent to this identity provider (http:// only for one on this machine, e.g. http://127.0.0.1:8080).';
  }
  if (check.parts.rest.includes('?')) return 'The issuer has a query (?…): give the address alone, as your identity provider names itself.';
  const contract = EnterpriseIdp.shape.issuer.safeParse(issuer);
  return contract.success ? undefined : `The issuer: ${firstIssue(contract.error)}.`;
}

/**
 * Enterprise-managed (SEP-990): the organisation's identity provider, its client for Steward, and the
 * person's ID token. The client's secret and the ID token are credentials' names only: a pasted
 * token is refused on its field (and is in no problem's words), so it never leaves the page.
 */
function idpFromForm(form: ServerForm, problems: FormProblem[]): EnterpriseIdp | undefined {
  const before = problems.length;
  const issuer = form.idpIssuer.trim();
  const issuerProblem = idpIssuerProblem(issuer);
  if (issuerProblem) problems.push({ field: 'oauth.idp.issuer', message: issuerProblem });
  const clientId = form.idpClientId.trim();
  const idCheck = EnterpriseIdp.shape.client_id.safeParse(clientId);
  if (clientId === '') problems.push({ field: 'oauth.idp.client_id', message: 'Give the client id your identity provider issued for Steward (your organisation’s administrator has it).' });
  else if (holdsKnownKey(clientId)) problems.push({ field: 'oauth.idp.client_id', message: 'This looks like a key or a token itself, not a client id: store it in Settings → Credentials and pick its name below. Nothing was sent.' });
  else if (!idCheck.success) problems.push({ field: 'oauth.idp.client_id', message: `Client id: ${firstIssue(idCheck.error)}.` });
  const typedSecret = form.idpSecret.trim();
  const secret = typedSecret === '' ? undefined : credentialProblem(typedSecret);
  if (secret !== undefined && 'problem' in secret) problems.push({ field: 'oauth.idp.client_secret', message: secret.problem });
  const typedToken = form.idpIdToken.trim();
  const token = typedToken === '' ? { problem: 'Pick the credential that holds your ID token from the identity provider (store it in Settings → Credentials first).' } : credentialProblem(typedToken);
  if ('problem' in token) problems.push({ field: 'oauth.idp.id_token', message: token.problem });
  if (problems.length > before || 'problem' in token || (secret !== undefined && 'problem' in secret)) return undefined;
  const endpoint = form.oauthKept?.idpTokenEndpoint;
  return {
    issuer,
    ...(endpoint !== undefined ? { token_endpoint: endpoint } : {}),
    client_id: clientId,
    ...(secret !== undefined ? { client_secret: `${CREDENTIAL_PREFIX}${secret.name}` } : {}),
    id_token: `${CREDENTIAL_PREFIX}${token.name}`,
  };
}

export interface WorkspaceForm {
  id: string;
  label: string;
  path: string;
}

/** Absolute on POSIX (`/…`) or Windows (`C:\…`, `\\server\…`); the host checks the folder exists. */
const ABSOLUTE = /^(?:\/|[A-Za-z]:[\\/]|\\\\)/;

export function workspaceRegistrationFromForm(form: WorkspaceForm, workspaces: readonly Workspace[]): FormResult<WorkspaceRegistration> {
  const problems: FormProblem[] = [];
  const id = form.id.trim();
  const idIssue = idProblem(id, workspaces.some((w) => w.id === id) ? { id, shipped: false } : undefined, 'workspace');
  if (idIssue) problems.push({ field: 'id', message: idIssue });
  const path = form.path.trim();
  if (!ABSOLUTE.test(path)) problems.push({ field: 'path', message: path === '' ? 'Give the folder’s absolute path on the host.' : `“${path}” is not an absolute path: give the full path from / (or a drive letter).` });
  if (problems.length > 0) return { ok: false, problems };
  const label = form.label.trim();
  const checked = WorkspaceRegistration.safeParse({ id, path, ...(label ? { label } : {}) });
  if (!checked.success) return { ok: false, problems: checked.error.issues.map((i) => ({ field: String(i.path[0] ?? 'id'), message: issueInWords(i) })) };
  return { ok: true, registration: checked.data };
}

/** The host's own sentence (it names what to change), without the `method: ` the client puts in front. */
export function hostErrorText(err: unknown): string {
  if (err instanceof HostRequestError) {
    const prefix = `${err.method}: `;
    return err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  }
  return err instanceof Error ? err.message : String(err);
}
