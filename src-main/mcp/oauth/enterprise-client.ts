import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import { credentialNameOf, isCredentialRef } from '@shared/contracts/credentials';
import { checkModelUrl, inTheClearOffMachine } from '@shared/contracts/model-url';
import type { EnterpriseIdp } from '@shared/contracts/remote-server';
import type { McpServerSpec } from '@shared/contracts/spec';
import type { CredentialStore } from '../../credentials/credential-store';
import type { RemoteEndpoint } from '../remote-endpoint';
import type { FlowProvider } from './machine-client';
import { oauthFetch, type RemoteAuth } from './oauth-fetch';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';

/** A server registered with enterprise-managed authorization (spec `oauth.grant: "enterprise_managed"`). */
export function isEnterpriseClient(spec: McpServerSpec): boolean {
  return spec.oauth?.grant === 'enterprise_managed';
}

const ExchangeAnswer = z.object({ access_token: z.string().min(1), issued_token_type: z.string().optional() });
const OAuthRefusal = z.object({ error: z.string(), error_description: z.string().optional() });

/**
 * Enterprise-managed authorization (SEP-990, cross-app access). When the server asks for a token:
 *
 * 1. the person's ID token (a keychain reference, `oauth.idp.id_token`) goes to the organisation's
 *    identity provider in an RFC 8693 token exchange (requested type ID-JAG, `audience` the
 *    server's authorization server as its metadata names itself, `resource` the server), after
 *    checking it was issued by that IdP and has not expired;
 * 2. the ID-JAG goes to the server's authorization server as an RFC 7523 JWT bearer grant, with
 *    Steward's client there (`oauth.client_id`, secret from the keychain, client_secret_basic
 *    where the server offers it; the SDK's `auth()` does this step).
 *
 * Nobody is asked: like a machine-to-machine client, each connection gets its own access token,
 * held in memory for that connection only (stamped with the issuer that gave it); nothing is
 * written, so a refusal at either step stores nothing. `oauth.issuer` limits the client to that
 * authorization server.
 */
export async function enterpriseClientProvider(spec: McpServerSpec, store: CredentialStore, authFetch: FetchLike): Promise<EnterpriseProvider> {
  const oauth = spec.oauth;
  if (oauth?.grant !== 'enterprise_managed' || oauth.idp === undefined) throw new Error(`MCP server "${spec.id}" is not registered with enterprise-managed authorization`);
  const read = async (ref: string, field: string): Promise<string> => {
    const value = isCredentialRef(ref) ? await store.get(credentialNameOf(ref)) : undefined;
    if (value === undefined) throw new Error(`MCP server "${spec.id}" needs credential ${ref} in oauth.${field}, and it is not in the keychain (steward credentials set ${isCredentialRef(ref) ? credentialNameOf(ref) : 'NAME'})`);
    return value;
  };
  // The person's ID token goes to the IdP: never in cleartext off this machine (the Registry form
  // refuses such an issuer; a hand-edited registry or spec is refused here, before any credential is read).
  for (const [field, url] of [['idp.issuer', oauth.idp.issuer], ['idp.token_endpoint', oauth.idp.token_endpoint]] as const) {
    if (url === undefined) continue;
    const check = checkModelUrl(url);
    if (!check.ok || inTheClearOffMachine(check.parts)) {
      throw new Error(`MCP server "${spec.id}": oauth.${field} must be an https:// address (http:// only on this machine): your ID token would be sent to ${url} in the clear. Nothing was sent.`);
    }
  }
  const client: OAuthClientInformationMixed = {
    client_id: oauth.client_id,
    ...(oauth.client_secret === undefined ? {} : { client_secret: await read(oauth.client_secret, 'client_secret') }),
    ...(oauth.issuer === undefined ? {} : { issuer: oauth.issuer }),
  };
  const idp = oauth.idp;
  return new EnterpriseProvider(spec.id, client, idp, {
    idToken: () => read(idp.id_token, 'idp.id_token'),
    idpSecret: () => (idp.client_secret === undefined ? Promise.resolve(undefined) : read(idp.client_secret, 'idp.client_secret')),
    fetch: authFetch,
  });
}

interface EnterpriseSources {
  idToken: () => Promise<string>;
  idpSecret: () => Promise<string | undefined>;
  /** The sign-in fetch (privacy-checked, no redirects): the IdP is external communication too. */
  fetch: FetchLike;
}

export class EnterpriseProvider implements FlowProvider {
  private held: OAuthTokens | undefined;
  private discovered: OAuthDiscoveryState | undefined;

  constructor(
    private readonly serverId: string,
    private client: OAuthClientInformationMixed,
    private readonly idp: EnterpriseIdp,
    private readonly sources: EnterpriseSources,
  ) {}

  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Steward', redirect_uris: [], grant_types: [JWT_BEARER], token_endpoint_auth_method: this.client.client_secret === undefined ? 'none' : 'client_secret_basic' };
  }

  clientInformation(): OAuthClientInformationMixed {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.held;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.held = tokens;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovered = state;
  }

  redirectToAuthorization(): void {
    throw this.signInRequired('enterprise-managed authorization opens no sign-in page');
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new Error('enterprise-managed authorization has no code verifier');
  }

  needsRefresh(): boolean {
    return false;
  }

  signInRequired(why: string): Error {
    return new Error(`MCP server "${this.serverId}" refused Steward's enterprise-managed access (${why}): check the client ${this.client.client_id} and the ID token in ${this.idp.id_token}`);
  }

  /** The authorization server's token endpoint, once discovered (where the ID-JAG is presented). */
  tokenEndpoint(): string | undefined {
    return this.discovered?.authorizationServerMetadata?.token_endpoint;
  }

  /** The authorization server as its metadata names itself (the ID-JAG's audience). */
  authorizationServer(): string | undefined {
    const state = this.discovered;
    return state === undefined ? undefined : (state.authorizationServerMetadata?.issuer ?? String(state.authorizationServerUrl));
  }

  /** Step 1 (the IdP's ID-JAG), then the JWT bearer grant's parameters; the SDK adds client authentication and `resource`. */
  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    const audience = this.authorizationServer();
    if (audience === undefined) throw new Error(`MCP server "${this.serverId}": its authorization server was not discovered, so there is nothing to ask the identity provider for`);
    const resource = this.discovered?.resourceMetadata?.resource;
    if (resource === undefined) throw new Error(`MCP server "${this.serverId}" publishes no protected resource metadata naming itself, which enterprise-managed authorization needs`);
    const jag = await this.requestIdJag(audience, resource, scope);
    const params = new URLSearchParams({ grant_type: JWT_BEARER, assertion: jag });
    if (scope) params.set('scope', scope);
    return params;
  }

  private async requestIdJag(audience: string, resource: string, scope: string | undefined): Promise<string> {
    const idToken = await this.sources.idToken();
    checkIdToken(idToken, this.idp);
    const endpoint = this.idp.token_endpoint ?? (await this.discoverIdpTokenEndpoint());
    const body = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      requested_token_type: ID_JAG,
      subject_token: idToken,
      subject_token_type: ID_TOKEN,
      audience,
      resource,
      client_id: this.idp.client_id,
    });
    const secret = await this.sources.idpSecret();
    if (secret !== undefined) body.set('client_secret', secret);
    if (scope) body.set('scope', scope);
    const who = `the identity provider ${this.idp.issuer}`;
    let response: Response;
    try {
      response = await this.sources.fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body });
    } catch (error) {
      throw new Error(`${who} could not be reached to exchange your ID token (${error instanceof Error ? error.message : String(error)}); nothing was stored`);
    }
    const answer: unknown = await response.json().catch(() => undefined);
    if (!response.ok) {
      const refusal = OAuthRefusal.safeParse(answer);
      const why = refusal.success ? `${refusal.data.error}${refusal.data.error_description ? `: ${refusal.data.error_description}` : ''}` : `HTTP ${response.status}`;
      throw new Error(`${who} refused to exchange your ID token for access to MCP server "${this.serverId}" (${why}); nothing was stored. If your ID token is stale, get a fresh one from your organisation's sign-in and store it with steward credentials set ${credentialNameOf(this.idp.id_token)}`);
    }
    const parsed = ExchangeAnswer.safeParse(answer);
    if (!parsed.success) throw new Error(`${who} answered the token exchange without an ID-JAG; nothing was stored`);
    if (parsed.data.issued_token_type !== undefined && parsed.data.issued_token_type !== ID_JAG) throw new Error(`${who} issued a ${parsed.data.issued_token_type} instead of an ID-JAG; nothing was stored`);
    return parsed.data.access_token;
  }

  /**
   * The IdP's token endpoint from its metadata (RFC 8414, then OpenID Connect discovery): only the
   * two fields this needs are read, since an IdP's OpenID document may leave out others.
   */
  private async discoverIdpTokenEndpoint(): Promise<string> {
    const issuer = new URL(this.idp.issuer);
    const path = issuer.pathname === '/' ? '' : trimSlash(issuer.pathname);
    const places = [`/.well-known/oauth-authorization-server${path}`, `/.well-known/openid-configuration${path}`, `${path}/.well-known/openid-configuration`];
    for (const place of [...new Set(places)]) {
      const response = await this.sources.fetch(new URL(place, issuer.origin).href, { headers: { accept: 'application/json' } }).catch(() => undefined);
      if (response === undefined || !response.ok) continue;
      const metadata = IdpMetadata.safeParse(await response.json().catch(() => undefined));
      if (!metadata.success) continue;
      if (trimSlash(metadata.data.issuer) !== trimSlash(this.idp.issuer)) throw new Error(`the identity provider's metadata names itself ${metadata.data.issuer}, not ${this.idp.issuer}; your ID token was not sent`);
      return metadata.data.token_endpoint;
    }
    throw new Error(`the identity provider ${this.idp.issuer} publishes no metadata naming its token endpoint; give it as oauth.idp.token_endpoint`);
  }
}

const IdpMetadata = z.object({ issuer: z.string(), token_endpoint: z.string().url() });

/** Before the ID token leaves the keychain: it is a JWT the configured IdP issued, and it has not expired. */
function checkIdToken(idToken: string, idp: EnterpriseIdp): void {
  const ref = idp.id_token;
  const claims = z.object({ iss: z.string().optional(), exp: z.number().optional() }).safeParse(jwtPayload(idToken));
  if (!claims.success) throw new Error(`${ref} does not hold an ID token (a JWT); store the one your organisation's sign-in gives you with steward credentials set ${credentialNameOf(ref)}`);
  if (claims.data.iss !== undefined && trimSlash(claims.data.iss) !== trimSlash(idp.issuer)) {
    throw new Error(`the ID token in ${ref} was issued by ${claims.data.iss}, not by the identity provider ${idp.issuer} this server names; it was not sent`);
  }
  if (claims.data.exp !== undefined && claims.data.exp * 1000 <= Date.now()) {
    throw new Error(`the ID token in ${ref} expired at ${new Date(claims.data.exp * 1000).toISOString()}; get a fresh one from your organisation's sign-in and store it with steward credentials set ${credentialNameOf(ref)}`);
  }
}

function jwtPayload(jwt: string): unknown {
  const part = jwt.split('.')[1];
  if (part === undefined) return undefined;
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

function trimSlash(url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url;
}

/**
 * The sign-in fetch of an enterprise-managed server: a refusal at the authorization server's token
 * endpoint (the JWT bearer grant) becomes a sentence saying so, instead of the SDK's bare error.
 */
export function enterpriseAuthFetch(authFetch: FetchLike, provider: () => EnterpriseProvider | undefined): FetchLike {
  return async (input, init) => {
    const response = await authFetch(input, init);
    const p = provider();
    const endpoint = p?.tokenEndpoint();
    if (response.ok || p === undefined || endpoint === undefined || String(input) !== endpoint) return response;
    const answer: unknown = await response.json().catch(() => undefined);
    const refusal = OAuthRefusal.safeParse(answer);
    const why = refusal.success ? `${refusal.data.error}${refusal.data.error_description ? `: ${refusal.data.error_description}` : ''}` : `HTTP ${response.status}`;
    throw new Error(`the authorization server ${p.authorizationServer() ?? endpoint} refused the grant from your identity provider (${why}); nothing was stored. Check the client ${p.clientInformation().client_id} and its secret`);
  };
}


/** The OAuth flow around an enterprise-managed server's requests (a run's, or `steward mcp sign-in`'s check). */
export function enterpriseAuth(spec: McpServerSpec, endpoint: RemoteEndpoint, store: CredentialStore, authFetch: FetchLike, onToken?: (token: string) => void): RemoteAuth {
  let current: EnterpriseProvider | undefined;
  const fetch = enterpriseAuthFetch(authFetch, () => current);
  return oauthFetch({ provider: async () => (current = await enterpriseClientProvider(spec, store, fetch)), endpoint, authFetch: fetch, ...(onToken ? { onToken } : {}) });
}
