import { credentialNameOf, isCredentialRef } from '@shared/contracts/credentials';
import type { McpServerSpec } from '@shared/contracts/spec';
import type { SignInClient } from '@shared/contracts/mcp-revision';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import type { CredentialStore } from '../../credentials/credential-store';
import { errorMessage } from '../errors';
import { connectNegotiated } from '../negotiated-connection';
import { allowedRemoteEndpoint, type RemoteEndpoint } from '../remote-endpoint';
import type { McpConnection } from '../mcp-connection';
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js';
import { KeychainOAuthProvider } from './keychain-oauth-provider';
import { SignInFailedError, startLoopbackRedirect } from './loopback-redirect';
import { OAuthRecordStore } from './oauth-record';
import { oauthFetch, signInFetch, type AuthHint, type RemoteAuth } from './oauth-fetch';
import { isMachineClient, machineClientProvider } from './machine-client';
import { enterpriseAuth, isEnterpriseClient } from './enterprise-client';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SignInRequiredError } from './keychain-oauth-provider';
import { configuredClientMetadataUrl } from './client-metadata';

/** A server whose spec sets its own Authorization header is not signed in with OAuth. */
export function usesOAuth(spec: McpServerSpec): boolean {
  return spec.url !== undefined && !Object.keys(spec.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
}

/**
 * The run's side: stored tokens are used and refreshed, and a missing sign-in fails the start,
 * saying how to sign in; with `consent` (a person who can open the page), a wider scope the server
 * asks for mid-run, or a sign-in gone stale, is put to them and the run goes on. A machine-to-machine
 * server (`oauth.grant: "client_credentials"`) gets its own token, with nobody asked, and so does
 * an enterprise-managed one (`"enterprise_managed"`, enterprise-client.ts) from the person's ID token.
 */
export function runAuth(spec: McpServerSpec, endpoint: RemoteEndpoint, store: CredentialStore, privacy: PrivacyPolicy, onToken?: (token: string) => void, consent?: RunConsent): RemoteAuth | undefined {
  if (!usesOAuth(spec)) return undefined;
  const authFetch = signInFetch(endpoint, privacy);
  const tokenSeen = onToken ? { onToken } : {};
  if (isMachineClient(spec)) return oauthFetch({ provider: () => machineClientProvider(spec, store), endpoint, authFetch, ...tokenSeen });
  if (isEnterpriseClient(spec)) return enterpriseAuth(spec, endpoint, store, authFetch, onToken);
  const records = new OAuthRecordStore(store, endpoint.url);
  const preRegistered = () => preRegisteredClient(spec, store);
  const bound = issuerBound(spec);
  const asked = consent ? { consent: (hint: AuthHint) => consentFlow(spec, endpoint, records, { ...consent, authFetch, preRegistered }, hint) } : {};
  return oauthFetch({ provider: () => KeychainOAuthProvider.load(records, spec.id, { preRegistered, ...bound }), endpoint, authFetch, ...tokenSeen, ...asked });
}

/** How a run puts an authorization to the person: the page shown (browser, printed link) and how long they have. */
export interface RunConsent {
  /**
   * Shows the authorization page; `why` says in words what the server asks for. `settled` resolves
   * once the consent has ended (it always does, after `open` resolved): what the trace records.
   */
  open: (authorizationUrl: URL, why: string, settled: Promise<ConsentAction>) => Promise<void>;
  timeoutMs?: number;
}

/** How a consent ended: the person agreed and the page came back with a code, refused, or did not answer (the wait ran out, the run stopped). */
export type ConsentAction = 'accept' | 'decline' | 'cancel';

/**
 * One consent mid-run: a loopback redirect of its own, the SDK's flow with the scope the server
 * asked for (never a refresh of the narrower grant), the page shown to the person, and the new
 * tokens in the keychain when they agree. Ends with SignInRequiredError when they do not come back.
 */
async function consentFlow(
  spec: McpServerSpec,
  endpoint: RemoteEndpoint,
  records: OAuthRecordStore,
  options: RunConsent & { authFetch: FetchLike; preRegistered: () => Promise<OAuthClientInformationMixed | undefined> },
  hint: AuthHint,
): Promise<void> {
  const why = hint.scope ? `it asks for access to ${hint.scope}` : 'its sign-in is missing or has expired';
  let p: KeychainOAuthProvider | undefined;
  // How the consent ended, for the run's trace: settled once (the first answer wins), and always before this returns.
  let settle: (action: ConsentAction) => void = () => undefined;
  const settled = new Promise<ConsentAction>((resolve) => (settle = resolve));
  const redirect = await startLoopbackRedirect(portOf((await records.read()).client), (iss) => p?.issuerRefusal(iss));
  try {
    const interaction = {
      redirectUrl: redirect.redirectUrl,
      state: redirect.state,
      open: (url: URL) => {
        redirect.opening();
        return options.open(url, why, settled);
      },
    };
    p = await KeychainOAuthProvider.load(records, spec.id, { interaction, preRegistered: options.preRegistered, ...issuerBound(spec), ...clientMetadata(), fresh: true });
    const base = { serverUrl: endpoint.url, resourceMetadataUrl: hint.resourceMetadataUrl, scope: hint.scope, fetchFn: options.authFetch };
    if ((await auth(p, base)) === 'AUTHORIZED') return;
    let authorizationCode: string;
    try {
      authorizationCode = await redirect.code(options.timeoutMs ?? DEFAULT_SIGN_IN_TIMEOUT_MS);
      settle('accept');
    } catch (error) {
      settle(error instanceof SignInFailedError && error.denied ? 'decline' : 'cancel');
      // A response refused by the issuer checks: the keychain is left as the consent found it.
      if (await p.undoRefusedSignIn()) throw new SignInRequiredError(`MCP server "${spec.id}" needed your consent (${why}): ${errorMessage(error)}`);
      throw new SignInRequiredError(`MCP server "${spec.id}" needed your consent (${why}) and it did not come: ${errorMessage(error)}`);
    }
    if ((await auth(p, { ...base, authorizationCode })) !== 'AUTHORIZED') throw new SignInRequiredError(`MCP server "${spec.id}": the authorization server did not issue a token after your consent`);
  } finally {
    settle('cancel');
    await redirect.close();
  }
}

export interface SignInOptions {
  store: CredentialStore;
  privacy: PrivacyPolicy;
  /** Shows the authorization page: the app opens the system browser; the CLI prints the link too. */
  open: (authorizationUrl: URL) => Promise<void>;
  /** How long the person has to finish in the browser (default 5 min). */
  timeoutMs?: number;
  onLog?: (line: string) => void;
}

export type SignInOutcome = { ok: true; server_name?: string; protocol_version?: string; tools: number } | { ok: false; message: string };

const DEFAULT_SIGN_IN_TIMEOUT_MS = 5 * 60_000;

/**
 * Signs in to a remote server: connects as a run would, and when the server asks for authorization
 * the SDK's flow runs with a loopback redirect (127.0.0.1) and the page shown through `open`. Ends
 * with the server's tools listed under the new token, which is then in the keychain only. Already
 * signed in (or a server that needs no sign-in): it just connects.
 */
export async function signInRemoteServer(spec: McpServerSpec, options: SignInOptions): Promise<SignInOutcome> {
  let session: SignedInConnection | undefined;
  try {
    session = await connectSignedIn(spec, options);
    const tools = await session.conn.listTools();
    const revision = session.conn.protocolVersion;
    return { ok: true, server_name: session.conn.serverName, ...(revision === undefined ? {} : { protocol_version: revision }), tools: tools.length };
  } catch (error) {
    return { ok: false, message: `signing in to MCP server "${spec.id}" failed: ${errorMessage(error)}` };
  } finally {
    await session?.close();
  }
}

export interface SignedInConnection {
  conn: McpConnection;
  close(): Promise<void>;
}

/**
 * A connection that may sign in at any point (at the handshake, or when a call needs more scope):
 * what `signInRemoteServer` uses, and the conformance client, which plays a person at the app.
 */
export async function connectSignedIn(spec: McpServerSpec, options: SignInOptions): Promise<SignedInConnection> {
  if (spec.url === undefined) throw new Error(`MCP server "${spec.id}" is not a remote (url) server: there is nothing to sign in to`);
  if (!usesOAuth(spec)) throw new Error(`MCP server "${spec.id}" sends its own Authorization header; remove it to sign in with OAuth`);
  const allowed = allowedRemoteEndpoint(spec.id, spec.url, options.privacy);
  if (!allowed.ok) throw new Error(allowed.message);
  const endpoint = allowed.endpoint;
  const records = new OAuthRecordStore(options.store, endpoint.url);
  const timeoutMs = options.timeoutMs ?? DEFAULT_SIGN_IN_TIMEOUT_MS;
  const headers = await resolveHeaders(spec, options.store);
  if (isMachineClient(spec) || isEnterpriseClient(spec)) {
    // Nobody signs in: connecting gets the client its token, which checks its credentials
    // (and, enterprise-managed, the ID token and the identity provider's exchange).
    const authFetch = signInFetch(endpoint, options.privacy);
    const auth = isEnterpriseClient(spec) ? enterpriseAuth(spec, endpoint, options.store, authFetch) : oauthFetch({ provider: () => machineClientProvider(spec, options.store), endpoint, authFetch });
    const conn = await connectNegotiated(spec.id, endpoint, headers, { startTimeoutMs: 60_000, callTimeoutMs: 60_000, onLog: options.onLog }, auth);
    return { conn, close: () => conn.close() };
  }
  const cimd = clientMetadata();
  const known = await records.read();
  // The provider of the flow under way: its authorization server's issuer is what the redirect's `iss` must be.
  let flowProvider: KeychainOAuthProvider | undefined;
  const redirect = await startLoopbackRedirect(portOf(known.client), (iss) => flowProvider?.issuerRefusal(iss));
  try {
    const interaction = {
      redirectUrl: redirect.redirectUrl,
      state: redirect.state,
      open: (url: URL) => {
        redirect.opening();
        return options.open(url);
      },
    };
    const auth = oauthFetch({
      provider: async () => (flowProvider = await KeychainOAuthProvider.load(records, spec.id, { interaction, preRegistered: () => preRegisteredClient(spec, options.store), ...issuerBound(spec), ...cimd })),
      endpoint,
      authFetch: signInFetch(endpoint, options.privacy),
      awaitCode: () => redirect.code(timeoutMs),
    });
    const conn = await connectNegotiated(spec.id, endpoint, headers, { startTimeoutMs: timeoutMs + 30_000, callTimeoutMs: 60_000, onLog: options.onLog }, auth);
    return {
      conn,
      async close() {
        await conn.close();
        await redirect.close();
        await flowProvider?.undoRefusedSignIn();
      },
    };
  } catch (error) {
    await redirect.close();
    // A sign-in stopped by the issuer checks (issuer-check.ts) keeps no client it registered on the way.
    await flowProvider?.undoRefusedSignIn();
    throw error;
  }
}

/** Signs out: the server's tokens and client registration leave the keychain. */
export async function signOutRemoteServer(spec: McpServerSpec, store: CredentialStore): Promise<boolean> {
  if (spec.url === undefined) return false;
  return new OAuthRecordStore(store, spec.url).forget();
}

/** Whether the keychain holds a sign-in for this server (the app shows "Signed in" or "Sign in"). */
export async function isSignedIn(spec: McpServerSpec, store: CredentialStore): Promise<boolean> {
  if (spec.url === undefined) return false;
  return (await new OAuthRecordStore(store, spec.url).read()).tokens !== undefined;
}

/**
 * How the client of this server's sign-in was obtained (mcp.auth_status, `steward servers list`):
 * a machine-to-machine client needs no sign-in; otherwise only a stored sign-in (tokens) says. A
 * client the spec registered beforehand (`oauth`), else the stored client: its client_id an https
 * address (a client ID metadata document, SEP-991) or one the authorization server issued on
 * registration (dynamic client registration, deprecated in MCP 2026-07-28). Undefined: nobody
 * signed in, or the record does not say.
 */
export async function signInClientOf(spec: McpServerSpec, store: CredentialStore): Promise<SignInClient | undefined> {
  if (spec.url === undefined || !usesOAuth(spec)) return undefined;
  if (isMachineClient(spec)) return 'client_credentials';
  // Enterprise-managed: the client was registered beforehand; each run exchanges the person's ID token.
  if (isEnterpriseClient(spec)) return 'pre_registered';
  const record = await new OAuthRecordStore(store, spec.url).read();
  if (record.tokens === undefined) return undefined;
  if (spec.oauth !== undefined) return 'pre_registered';
  const clientId = record.client?.client_id;
  if (clientId === undefined) return undefined;
  return isHttpsAddress(clientId) ? 'metadata_document' : 'dynamic_registration';
}

function isHttpsAddress(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

async function resolveHeaders(spec: McpServerSpec, store: CredentialStore): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  for (const [name, ref] of Object.entries(spec.headers ?? {})) {
    const value = isCredentialRef(ref) ? await store.get(credentialNameOf(ref)) : undefined;
    if (value === undefined) throw new Error(`credential ${ref} for headers.${name} is not in the keychain`);
    headers[name] = value;
  }
  return headers;
}

/** The spec's client registered beforehand, its secret read from the keychain (it goes to the token endpoint only). */
async function preRegisteredClient(spec: McpServerSpec, store: CredentialStore): Promise<OAuthClientInformationMixed | undefined> {
  if (spec.oauth === undefined) return undefined;
  const ref = spec.oauth.client_secret;
  if (ref === undefined) return { client_id: spec.oauth.client_id };
  const secret = isCredentialRef(ref) ? await store.get(credentialNameOf(ref)) : undefined;
  if (secret === undefined) throw new Error(`MCP server "${spec.id}" needs credential ${ref} in oauth.client_secret, and it is not in the keychain`);
  return { client_id: spec.oauth.client_id, client_secret: secret };
}

/** The authorization server a client registered beforehand belongs to (spec `oauth.issuer`), if the spec says. */
function issuerBound(spec: McpServerSpec): { preRegisteredIssuer?: string } {
  return spec.oauth?.issuer === undefined ? {} : { preRegisteredIssuer: spec.oauth.issuer };
}

/** Steward's client ID metadata document, where one is configured (client-metadata.ts); a bad setting is refused in words. */
function clientMetadata(): { clientMetadataUrl?: string } {
  const url = configuredClientMetadataUrl();
  return url === undefined ? {} : { clientMetadataUrl: url };
}

function portOf(client: unknown): number | undefined {
  const uri = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  if (!Array.isArray(uri) || typeof uri[0] !== 'string') return undefined;
  try {
    const port = Number(new URL(uri[0]).port);
    return port > 0 ? port : undefined;
  } catch {
    return undefined;
  }
}
