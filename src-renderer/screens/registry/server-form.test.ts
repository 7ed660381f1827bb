import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { RegisteredServer } from '@shared/contracts/host-registry';
import { HostRequestError } from '../../host/host-client';
import { ServerRegistration } from '@shared/contracts/host-registry';
import { emptyServerForm, hostErrorText, formFromServer, idpIssuerProblem, serverRegistrationFromForm, shippedPackages, workspaceRegistrationFromForm, type ServerForm } from './server-form';
import { signInWords } from './sign-in-words';

const SHIPPED: RegisteredServer[] = [
  { id: 'filesystem', label: 'Filesystem (shipped)', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], env: {}, source: 'shipped' },
  { id: 'memory', label: 'Memory (shipped)', package: '@modelcontextprotocol/server-memory', args: [], env: {}, source: 'shipped' },
];
const MINE: RegisteredServer = { id: 'notes', label: 'My notes', command: 'node', args: ['/opt/notes/server.js', '${workspace}'], env: { NOTES_TOKEN: 'keychain:notes-token' }, source: 'user' };
const SERVERS = [...SHIPPED, MINE];

const commandForm = (over: Partial<ServerForm> = {}): ServerForm => ({ ...emptyServerForm(), id: 'mine', label: 'Mine', kind: 'command', command: 'node', args: 'server.js\n${workspace}\n', ...over });

describe('the add-server form as a registration', () => {
  it('a command server becomes a registration with one argument per non-blank line and env as keychain references', () => {
    const result = serverRegistrationFromForm(commandForm({ env: [{ key: 'API_KEY', credential: 'openai' }] }), { servers: SERVERS });
    expect(result).toEqual({ ok: true, registration: { id: 'mine', label: 'Mine', command: 'node', args: ['server.js', '${workspace}'], env: { API_KEY: 'keychain:openai' } } });
  });

  it('a shipped package is registered by its package, never with a command', () => {
    const result = serverRegistrationFromForm({ ...emptyServerForm(), id: 'docs', label: 'Docs folder', kind: 'package', package: '@modelcontextprotocol/server-filesystem', command: 'ignored', args: '${workspace}' }, { servers: SERVERS });
    expect(result).toEqual({ ok: true, registration: { id: 'docs', label: 'Docs folder', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], env: {} } });
  });

  it('an env value that is a raw secret is refused, whatever it looks like, and nothing is registered', () => {
    const secrets = ['sk-proj-AbCdEf0123456789AbCdEf0123456789', 'ghp_0123456789abcdefABCDEF0123456789abcd', 'Qm9vbGVhbjEyMzQ1Njc4OTBhYmNkZWZnaGlqa2xt'];
    for (const credential of secrets) {
      const result = serverRegistrationFromForm(commandForm({ env: [{ key: 'TOKEN', credential }] }), { servers: SERVERS });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.problems).toContainEqual({ field: 'env.0', message: expect.stringContaining('Settings → Credentials') });
    }
  });

  it('whatever is typed as a credential, a registration only ever holds keychain references in env', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (credential) => {
        const result = serverRegistrationFromForm(commandForm({ env: [{ key: 'TOKEN', credential }] }), { servers: SERVERS });
        if (result.ok) expect(Object.values(result.registration.env).every((v) => /^keychain:[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(v))).toBe(true);
      }),
    );
  });

  it('a typed keychain:NAME is read as the name NAME', () => {
    const result = serverRegistrationFromForm(commandForm({ env: [{ key: 'TOKEN', credential: 'keychain:work-token' }] }), { servers: SERVERS });
    expect(result.ok && result.registration.env).toEqual({ TOKEN: 'keychain:work-token' });
  });

  it('an id already taken is refused with what to do: a shipped one and one of yours', () => {
    const shipped = serverRegistrationFromForm(commandForm({ id: 'filesystem' }), { servers: SERVERS });
    const yours = serverRegistrationFromForm(commandForm({ id: 'notes' }), { servers: SERVERS });
    expect(shipped).toEqual({ ok: false, problems: [{ field: 'id', message: expect.stringContaining('ships with Steward') }] });
    expect(yours).toEqual({ ok: false, problems: [{ field: 'id', message: expect.stringContaining('Edit') }] });
  });

  it('editing a server of yours keeps its id and replaces it', () => {
    const form = formFromServer(MINE);
    expect(form).toMatchObject({ id: 'notes', kind: 'command', command: 'node', args: '/opt/notes/server.js\n${workspace}', env: [{ key: 'NOTES_TOKEN', credential: 'notes-token' }] });
    expect(serverRegistrationFromForm({ ...form, label: 'Notes v2' }, { servers: SERVERS, editing: 'notes' })).toEqual({
      ok: true,
      registration: { id: 'notes', label: 'Notes v2', command: 'node', args: ['/opt/notes/server.js', '${workspace}'], env: { NOTES_TOKEN: 'keychain:notes-token' } },
    });
  });

  it('invalid id characters, a missing command, a raw secret in an argument and a duplicate env key are each named on their field', () => {
    const result = serverRegistrationFromForm(
      commandForm({ id: 'My Server', command: ' ', args: 'ok\n--token=sk-proj-AbCdEf0123456789AbCdEf0123456789', env: [{ key: 'A', credential: 'x1' }, { key: 'A', credential: 'x2' }] }),
      { servers: SERVERS },
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const fields = result.problems.map((p) => p.field);
    expect(fields).toEqual(expect.arrayContaining(['id', 'command', 'args', 'env.1']));
    expect(result.problems.find((p) => p.field === 'id')?.message).toContain('lowercase');
    expect(result.problems.find((p) => p.field === 'args')?.message).toContain('line 2');
  });

  it('a credential reference as an argument is refused: credentials go in env', () => {
    const result = serverRegistrationFromForm(commandForm({ args: 'keychain:openai' }), { servers: SERVERS });
    expect(result).toEqual({ ok: false, problems: [{ field: 'args', message: expect.stringContaining('env') }] });
  });

  it('a package not shipped with Steward is refused, and the shipped ones are offered once each', () => {
    const result = serverRegistrationFromForm({ ...commandForm(), kind: 'package', package: 'left-pad' }, { servers: SERVERS });
    expect(result).toEqual({ ok: false, problems: [{ field: 'package', message: expect.stringContaining('command') }] });
    expect(shippedPackages([...SERVERS, { ...SHIPPED[0]!, id: 'again' }]).map((p) => p.package)).toEqual(['@modelcontextprotocol/server-filesystem', '@modelcontextprotocol/server-memory']);
  });
});

describe('the add-workspace form', () => {
  it('an absolute folder becomes a registration; a relative one, a taken id or a bad id is named on its field', () => {
    const taken = [{ id: 'demo', label: 'Demo', path: '/data/workspaces/demo', in_data_folder: true }];
    expect(workspaceRegistrationFromForm({ id: 'docs', label: '', path: ' /home/me/docs ' }, taken)).toEqual({ ok: true, registration: { id: 'docs', path: '/home/me/docs' } });
    expect(workspaceRegistrationFromForm({ id: 'win', label: 'Win', path: 'C:\\Users\\me' }, taken)).toEqual({ ok: true, registration: { id: 'win', label: 'Win', path: 'C:\\Users\\me' } });
    const bad = workspaceRegistrationFromForm({ id: 'demo', label: '', path: 'docs' }, taken);
    expect(bad).toEqual({ ok: false, problems: [{ field: 'id', message: expect.stringContaining('already') }, { field: 'path', message: expect.stringContaining('absolute') }] });
    expect(workspaceRegistrationFromForm({ id: 'Docs!', label: '', path: '/x' }, taken)).toEqual({ ok: false, problems: [{ field: 'id', message: expect.stringContaining('lowercase') }] });
  });
});

describe('a host error as the page shows it', () => {
  it('is the host’s own sentence, without the method name in front', () => {
    expect(hostErrorText(new HostRequestError('servers.register', 'invalid_params', '"filesystem" is a shipped server\'s id; pick another'))).toBe('"filesystem" is a shipped server\'s id; pick another');
    expect(hostErrorText(new HostRequestError('mcp.inspect', 'host_error', 'MCP server "x" did not start: exited (Error: Cannot find module)'))).toBe('MCP server "x" did not start: exited (Error: Cannot find module)');
    expect(hostErrorText('plain')).toBe('plain');
  });
});

describe('the add-server form for a remote (URL) server', () => {
  const remoteForm = (over: Partial<ServerForm> = {}): ServerForm => ({ ...emptyServerForm(), id: 'remote', label: 'Remote', kind: 'url', url: 'https://mcp.example.com/mcp', args: 'ignored', ...over });

  it('becomes a registration with its url and headers as keychain references, and no args or env', () => {
    const result = serverRegistrationFromForm(remoteForm({ env: [{ key: 'Authorization', credential: 'remote-token' }] }), { servers: SERVERS });
    expect(result).toEqual({ ok: true, registration: { id: 'remote', label: 'Remote', url: 'https://mcp.example.com/mcp', args: [], env: {}, headers: { Authorization: 'keychain:remote-token' } } });
  });

  it('a pasted header value, a bad header name and a bad address are each named on their field', () => {
    const result = serverRegistrationFromForm(
      remoteForm({ url: 'http://127.0.0.1@evil.example/', env: [{ key: 'X-Key', credential: 'sk-proj-AbCdEf0123456789AbCdEf0123456789' }, { key: 'bad header', credential: 'k' }] }),
      { servers: SERVERS },
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.field)).toEqual(['url', 'env.0', 'env.1']);
    expect(result.problems[0]?.message).toMatch(/user name or password/);
    expect(result.problems[1]?.message).toMatch(/looks like a key itself/);
    expect(JSON.stringify(result)).not.toContain('sk-proj-AbCdEf');
  });

  it('editing a remote server shows its url and its headers in the rows', () => {
    const form = formFromServer({ id: 'r', label: 'R', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'keychain:tok' }, args: [], env: {}, source: 'user' });
    expect(form).toMatchObject({ kind: 'url', url: 'https://mcp.example.com/mcp', env: [{ key: 'Authorization', credential: 'tok' }] });
  });
});

describe('the add-server form’s sign-in client (OAuth) of a remote server', () => {
  const remoteForm = (over: Partial<ServerForm> = {}): ServerForm => ({ ...emptyServerForm(), id: 'remote', label: 'Remote', kind: 'url', url: 'https://mcp.example.com/mcp', ...over });

  it('a client id and a secret picked from the keychain become the registration’s oauth, the secret as a keychain reference', () => {
    const result = serverRegistrationFromForm(remoteForm({ oauthClientId: ' steward-desktop ', oauthSecret: 'idp-secret' }), { servers: SERVERS });
    expect(result).toEqual({ ok: true, registration: { id: 'remote', label: 'Remote', url: 'https://mcp.example.com/mcp', args: [], env: {}, headers: {}, oauth: { client_id: 'steward-desktop', client_secret: 'keychain:idp-secret' } } });
  });

  it('a client id alone is a public client; neither leaves Steward to register itself (no oauth)', () => {
    expect(serverRegistrationFromForm(remoteForm({ oauthClientId: 'public-app' }), { servers: SERVERS })).toMatchObject({ ok: true, registration: { oauth: { client_id: 'public-app' } } });
    const none = serverRegistrationFromForm(remoteForm(), { servers: SERVERS });
    expect(none.ok && 'oauth' in none.registration).toBe(false);
  });

  it('a pasted client secret is refused on its field and appears nowhere in the result', () => {
    const secret = 'sk-proj-AbCdEf0123456789AbCdEf0123456789';
    const result = serverRegistrationFromForm(remoteForm({ oauthClientId: 'app', oauthSecret: secret }), { servers: SERVERS });
    expect(result).toEqual({ ok: false, problems: [{ field: 'oauth.client_secret', message: expect.stringMatching(/looks like a key itself/) }] });
    expect(JSON.stringify(result)).not.toContain('AbCdEf0123');
  });

  it('whatever is typed as the client secret, a registration only ever holds a keychain reference there', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (typed) => {
        const result = serverRegistrationFromForm(remoteForm({ oauthClientId: 'app', oauthSecret: typed }), { servers: SERVERS });
        if (result.ok && result.registration.oauth?.client_secret !== undefined) expect(result.registration.oauth.client_secret).toMatch(/^keychain:[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);
      }),
    );
  });

  it('a secret without a client id, a client id over the contract’s length, and an Authorization header beside a client are each named', () => {
    expect(serverRegistrationFromForm(remoteForm({ oauthSecret: 'idp-secret' }), { servers: SERVERS })).toEqual({ ok: false, problems: [{ field: 'oauth.client_id', message: expect.stringContaining('client id') }] });
    expect(serverRegistrationFromForm(remoteForm({ oauthClientId: 'x'.repeat(501) }), { servers: SERVERS })).toEqual({ ok: false, problems: [{ field: 'oauth.client_id', message: expect.stringContaining('500') }] });
    const both = serverRegistrationFromForm(remoteForm({ oauthClientId: 'app', env: [{ key: 'authorization', credential: 'tok' }] }), { servers: SERVERS });
    expect(both).toEqual({ ok: false, problems: [{ field: 'oauth.client_id', message: expect.stringContaining('Authorization header') }] });
  });

  it('a machine-to-machine client: its secret or its private key (keychain references), exactly one, and it reads back when editing', () => {
    const basic = serverRegistrationFromForm(remoteForm({ oauthClientId: 'svc', oauthSecret: 'svc-secret', oauthGrant: 'machine' }), { servers: SERVERS });
    expect(basic).toMatchObject({ ok: true, registration: { oauth: { client_id: 'svc', client_secret: 'keychain:svc-secret', grant: 'client_credentials' } } });
    const jwt = serverRegistrationFromForm(remoteForm({ oauthClientId: 'svc', oauthPrivateKey: 'svc-key', oauthGrant: 'machine' }), { servers: SERVERS });
    expect(jwt).toMatchObject({ ok: true, registration: { oauth: { client_id: 'svc', grant: 'client_credentials', private_key: 'keychain:svc-key' } } });
    expect(serverRegistrationFromForm(remoteForm({ oauthClientId: 'svc', oauthGrant: 'machine' }), { servers: SERVERS })).toEqual({ ok: false, problems: [{ field: 'oauth.client_secret', message: expect.stringContaining('secret or its private key') }] });
    expect(serverRegistrationFromForm(remoteForm({ oauthClientId: 'svc', oauthSecret: 'a', oauthPrivateKey: 'b', oauthGrant: 'machine' }), { servers: SERVERS })).toEqual({ ok: false, problems: [{ field: 'oauth.private_key', message: expect.stringContaining('not both') }] });
    // A private key left in the form after unticking machine-to-machine is not registered.
    expect(serverRegistrationFromForm(remoteForm({ oauthClientId: 'app', oauthPrivateKey: 'svc-key' }), { servers: SERVERS })).toEqual({ ok: true, registration: expect.objectContaining({ oauth: { client_id: 'app' } }) });
    const form = formFromServer({ id: 'r', label: 'R', url: 'https://mcp.example.com/mcp', oauth: { client_id: 'svc', grant: 'client_credentials', private_key: 'keychain:svc-key' }, args: [], env: {}, source: 'user' });
    expect(form).toMatchObject({ oauthClientId: 'svc', oauthGrant: 'machine', oauthPrivateKey: 'svc-key', oauthSecret: '' });
  });

  it('an edit keeps the enterprise client’s identity provider and what the form does not show (its authorization server) as they were', () => {
    const oauth = {
      client_id: 'mcp-client',
      client_secret: 'keychain:as-secret',
      grant: 'enterprise_managed' as const,
      issuer: 'https://as.example.com',
      idp: { issuer: 'https://idp.example.com', client_id: 'steward', id_token: 'keychain:corp-id-token' },
    };
    const form = formFromServer({ id: 'corp', label: 'Corp', url: 'https://mcp.example.com/mcp', oauth, args: [], env: {}, source: 'user' });
    const saved = serverRegistrationFromForm({ ...form, label: 'Corp tools' }, { servers: SERVERS });
    expect(saved).toEqual({ ok: true, registration: expect.objectContaining({ label: 'Corp tools', oauth }) });
    // Made machine-to-machine, it is no enterprise client any more; its authorization server is still the one it was.
    const machine = serverRegistrationFromForm({ ...form, oauthGrant: 'machine' }, { servers: SERVERS });
    expect(machine).toEqual({ ok: true, registration: expect.objectContaining({ oauth: { client_id: 'mcp-client', client_secret: 'keychain:as-secret', grant: 'client_credentials', issuer: 'https://as.example.com' } }) });
  });

  it('editing shows the client id and the secret’s credential name, never a value; a command server has no oauth', () => {
    const form = formFromServer({ id: 'r', label: 'R', url: 'https://mcp.example.com/mcp', oauth: { client_id: 'app', client_secret: 'keychain:idp-secret' }, args: [], env: {}, source: 'user' });
    expect(form).toMatchObject({ oauthClientId: 'app', oauthSecret: 'idp-secret' });
    expect(formFromServer(MINE)).toMatchObject({ oauthClientId: '', oauthSecret: '' });
    const command = serverRegistrationFromForm(commandForm({ oauthClientId: 'ignored' }), { servers: SERVERS });
    expect(command.ok && 'oauth' in command.registration).toBe(false);
  });
});

describe('the add-server form’s enterprise-managed sign-in (SEP-990)', () => {
  const enterpriseForm = (over: Partial<ServerForm> = {}): ServerForm => ({
    ...emptyServerForm(),
    id: 'corp',
    label: 'Corp',
    kind: 'url',
    url: 'https://mcp.example.com/mcp',
    oauthGrant: 'enterprise',
    oauthClientId: 'steward-at-as',
    idpIssuer: ' https://login.example.com ',
    idpClientId: ' steward-at-idp ',
    idpIdToken: 'corp-id-token',
    ...over,
  });
  const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJodHRwczovL2xvZ2luLmV4YW1wbGUuY29tIn0.c2lnbmF0dXJlLXBsYW50ZWQ';

  it('its identity provider, client and ID token become the registration’s oauth, the secrets as keychain references', () => {
    const result = serverRegistrationFromForm(enterpriseForm({ oauthSecret: 'as-secret', idpSecret: 'keychain:idp-secret' }), { servers: SERVERS });
    expect(result).toEqual({
      ok: true,
      registration: {
        id: 'corp',
        label: 'Corp',
        url: 'https://mcp.example.com/mcp',
        args: [],
        env: {},
        headers: {},
        oauth: {
          client_id: 'steward-at-as',
          client_secret: 'keychain:as-secret',
          grant: 'enterprise_managed',
          idp: { issuer: 'https://login.example.com', client_id: 'steward-at-idp', client_secret: 'keychain:idp-secret', id_token: 'keychain:corp-id-token' },
        },
      },
    });
  });

  it('each missing or wrong field is named on its own field in words, and nothing is registered', () => {
    const empty = serverRegistrationFromForm(enterpriseForm({ oauthClientId: '', idpIssuer: '', idpClientId: '', idpIdToken: '' }), { servers: SERVERS });
    expect(empty.ok).toBe(false);
    if (empty.ok) return;
    expect(empty.problems.map((p) => p.field)).toEqual(['oauth.idp.issuer', 'oauth.idp.client_id', 'oauth.idp.id_token', 'oauth.client_id']);
    expect(empty.problems[0]?.message).toContain('issuer');
    expect(empty.problems[1]?.message).toContain('client id your identity provider issued');
    expect(empty.problems[2]?.message).toContain('ID token');
    expect(empty.problems[3]?.message).toContain('authorization server');
    const plainHttp = serverRegistrationFromForm(enterpriseForm({ idpIssuer: 'http://login.example.com' }), { servers: SERVERS });
    expect(plainHttp).toEqual({ ok: false, problems: [{ field: 'oauth.idp.issuer', message: expect.stringContaining('https://') }] });
  });

  it('the issuer is https, or http on this machine only; an address with a password, a query or no scheme is refused', () => {
    for (const ok of ['https://login.example.com', 'https://login.example.com/oauth2/default', 'http://127.0.0.1:8080', 'http://localhost:9000/idp', 'http://[::1]:8080']) expect(idpIssuerProblem(ok)).toBeUndefined();
    expect(idpIssuerProblem('http://idp.corp.example')).toMatch(/must be an https:\/\/ address/);
    expect(idpIssuerProblem('https://ada:pw@login.example.com')).toMatch(/user name or password/);
    expect(idpIssuerProblem('https://login.example.com/?tenant=a')).toMatch(/query/);
    expect(idpIssuerProblem('login.example.com')).toMatch(/must start with http:\/\/ or https:\/\//);
    expect(idpIssuerProblem('https://login.example.com/#x')).toMatch(/fragment/);
  });

  it('a planted ID token, a pasted client secret or a token in the client id is refused on its field and appears nowhere in the result', () => {
    const planted = 'sk-proj-PlantedIdpSecret0123456789AbCdEf';
    const result = serverRegistrationFromForm(enterpriseForm({ idpIdToken: JWT, idpSecret: planted, idpClientId: JWT }), { servers: SERVERS });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.field)).toEqual(['oauth.idp.client_id', 'oauth.idp.client_secret', 'oauth.idp.id_token']);
    expect(result.problems.every((p) => /key|token itself/.test(p.message))).toBe(true);
    expect(JSON.stringify(result)).not.toContain('eyJhbGci');
    expect(JSON.stringify(result)).not.toContain('PlantedIdpSecret');
  });

  it('whatever is typed as the ID token or the identity provider’s secret, a registration only ever holds keychain references there', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.string({ maxLength: 80 }), (token, secret) => {
        const result = serverRegistrationFromForm(enterpriseForm({ idpIdToken: token, idpSecret: secret }), { servers: SERVERS });
        if (!result.ok) return;
        const idp = result.registration.oauth?.idp;
        expect(idp?.id_token).toMatch(/^keychain:[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);
        if (idp?.client_secret !== undefined) expect(idp.client_secret).toMatch(/^keychain:[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);
      }),
    );
  });

  it('editing shows its values (secrets by credential name) and saving it unchanged gives back exactly what was registered', () => {
    const registered: RegisteredServer = {
      id: 'corp',
      label: 'Corp',
      url: 'https://mcp.example.com/mcp',
      headers: {},
      args: [],
      env: {},
      source: 'user',
      trust: 'trusted',
      oauth: {
        client_id: 'steward-at-as',
        client_secret: 'keychain:as-secret',
        grant: 'enterprise_managed',
        issuer: 'https://as.example.com',
        idp: { issuer: 'https://login.example.com', token_endpoint: 'https://login.example.com/oauth2/token', client_id: 'steward-at-idp', client_secret: 'keychain:idp-secret', id_token: 'keychain:corp-id-token' },
      },
    };
    const form = formFromServer(registered);
    expect(form).toMatchObject({ oauthGrant: 'enterprise', oauthClientId: 'steward-at-as', oauthSecret: 'as-secret', idpIssuer: 'https://login.example.com', idpClientId: 'steward-at-idp', idpSecret: 'idp-secret', idpIdToken: 'corp-id-token' });
    const { source: _source, ...asRegistered } = registered;
    expect(serverRegistrationFromForm(form, { servers: [...SERVERS, registered], editing: 'corp' })).toEqual({ ok: true, registration: ServerRegistration.parse(asRegistered) });
    // Back to a browser sign-in: the identity provider and its token are not sent any more.
    const browser = serverRegistrationFromForm({ ...form, oauthGrant: 'browser' }, { servers: SERVERS, editing: 'corp' });
    expect(browser).toEqual({ ok: true, registration: expect.objectContaining({ oauth: { client_id: 'steward-at-as', client_secret: 'keychain:as-secret', issuer: 'https://as.example.com' } }) });
  });

  it('the registry card says in words that it signs in through the organisation’s identity provider; other servers say nothing', () => {
    expect(signInWords({ oauth: { client_id: 'c', grant: 'enterprise_managed', idp: { issuer: 'https://login.example.com/', client_id: 'i', id_token: 'keychain:t' } } })).toBe(
      'signs in through your organisation’s identity provider (https://login.example.com) with your ID token from the keychain; nobody signs in at the server',
    );
    expect(signInWords({ oauth: { client_id: 'c', grant: 'client_credentials', client_secret: 'keychain:s' } })).toBeUndefined();
    expect(signInWords({})).toBeUndefined();
  });
});
