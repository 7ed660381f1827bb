import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isLoopbackHostname } from '@shared/contracts/model-url';
import { isHostAllowed, type PrivacyPolicy } from '@shared/policy/privacy';
import type { RemoteEndpoint } from '../remote-endpoint';
import { SignInRequiredError } from './keychain-oauth-provider';
import type { FlowProvider } from './machine-client';
import { unionScopes } from './scope-union';

/** Wraps the fetch a remote connection sends its MCP requests with. */
export type RemoteAuth = (mcpFetch: FetchLike) => FetchLike;

export interface OAuthFetchOptions {
  /** Loaded on first use; a run on a machine without a keychain still reaches servers that need no sign-in. */
  provider: () => Promise<FlowProvider>;
  endpoint: RemoteEndpoint;
  /** Where discovery, registration and token requests may go (signInFetch). */
  authFetch: FetchLike;
  /** During a sign-in: the authorization code the browser brings back. Absent in a run. */
  awaitCode?: () => Promise<string>;
  /**
   * In a run where a person can consent in the browser (the CLI with a terminal or a browser, the
   * app): a wider scope the server asks for mid-run (403 `insufficient_scope`), or a sign-in that is
   * missing or expired, is put to them (sign-in.ts `consentFlow`), and the request goes on under the
   * new token. Absent: such a request fails with SignInRequiredError, saying how to sign in.
   */
  consent?: (hint: AuthHint) => Promise<void>;
  /** Each access token before it is first sent (a run registers it with its secret masking). */
  onToken?: (token: string) => void;
}

/** What a server's refusal says the flow should ask for. */
export interface AuthHint {
  resourceMetadataUrl?: URL;
  scope?: string;
}

/**
 * The MCP authorization flow around a remote connection's requests, with the SDK's `auth()` doing
 * the protocol. Each request carries the stored access token; a token at its expiry is refreshed
 * first; a 401 (or a 403 `insufficient_scope`) runs `auth()` with what the server's
 * `WWW-Authenticate` says (resource metadata, scope) and sends the request once more. Each such
 * step discovers the authorization server anew (a server may have moved to another one, SEP-2352),
 * and a challenged scope is asked for together with the scopes asked for before (SEP-2350). In a sign-in
 * the browser round trip happens inside that step; in a run it happens only through `consent` (a
 * wider scope is always put to the person, never refreshed around), else the request fails with
 * SignInRequiredError. One flow at a time: concurrent refusals wait for it.
 */
export function oauthFetch(options: OAuthFetchOptions): RemoteAuth {
  const serverUrl = options.endpoint.url;
  let loaded: Promise<FlowProvider> | undefined;
  let flow: Promise<void> | undefined;
  let lastToken: string | undefined;
  const provider = () => (loaded ??= options.provider());

  const askPerson = async (consent: (hint: AuthHint) => Promise<void>, hint: AuthHint): Promise<void> => {
    await consent(hint);
    // The person's consent stored new tokens in the keychain: read them from there.
    loaded = undefined;
  };
  const authorize = async (p: FlowProvider, challenge: AuthHint, widerScope: boolean): Promise<void> => {
    const consent = options.awaitCode ? undefined : options.consent;
    // A run with no sign-in stored has nothing to refresh: it stops before registering a client
    // (a run never starts a first sign-in; `steward mcp sign-in` or the app's Sign in does).
    if (!options.awaitCode && (await p.clientInformation()) === undefined) throw p.signInRequired('nobody has signed in to it yet');
    // SEP-2350: what was asked for before stays asked for. No challenged scope: the SDK's own choice
    // (the resource metadata's scopes_supported).
    const hint = challenge.scope === undefined ? challenge : { ...challenge, scope: unionScopes(p.previousScope?.(), challenge.scope) };
    if (widerScope && consent) return askPerson(consent, hint);
    // The authorization server is discovered anew, never taken from an earlier flow: the resource
    // metadata may name another one now (SEP-2352), whose credentials are not the old one's.
    await p.invalidateCredentials?.('discovery');
    try {
      const base = { serverUrl, resourceMetadataUrl: hint.resourceMetadataUrl, scope: hint.scope, fetchFn: options.authFetch };
      const first = await auth(p, base);
      if (first === 'AUTHORIZED') return;
      if (!options.awaitCode) throw new SignInRequiredError('sign-in needed');
      const authorizationCode = await options.awaitCode();
      const second = await auth(p, { ...base, authorizationCode });
      if (second !== 'AUTHORIZED') throw new SignInRequiredError('the authorization server did not issue a token');
    } catch (error) {
      if (error instanceof SignInRequiredError && consent) return askPerson(consent, hint);
      throw error;
    }
  };
  const once = (run: () => Promise<void>): Promise<void> => {
    flow ??= run().finally(() => {
      flow = undefined;
    });
    return flow;
  };

  return (next) => async (input, init) => {
    if (flow) await flow.catch(() => undefined);
    let p: FlowProvider | undefined;
    try {
      p = await provider();
    } catch (error) {
      // No keychain: requests go out unauthenticated; a refusal below says why sign-in cannot help.
      // The failed load is kept, so the connection does not ask the keychain again on every request.
      const response = await next(input, init);
      if (response.status === 401) throw error;
      return response;
    }
    const live = p;
    if (live.needsRefresh()) await once(() => authorize(live, {}, false));
    const send = async () => {
      const token = (await (await provider()).tokens())?.access_token;
      if (token !== undefined && token !== lastToken) {
        lastToken = token;
        options.onToken?.(token);
      }
      return next(input, withBearer(init, token));
    };
    const response = await send();
    const { resourceMetadataUrl, scope, error } = extractWWWAuthenticateParams(response);
    const widerScope = response.status === 403 && error === 'insufficient_scope';
    if (response.status !== 401 && !widerScope) return response;
    await response.body?.cancel().catch(() => undefined);
    await once(() => authorize(live, { resourceMetadataUrl, scope }, widerScope));
    // Sent once more only: a server that still refuses gets its refusal reported, not a loop.
    return send();
  };
}

function withBearer(init: RequestInit | undefined, token: string | undefined): RequestInit | undefined {
  if (token === undefined) return init;
  const headers = new Headers(init?.headers);
  headers.set('authorization', `Bearer ${token}`);
  return { ...init, headers };
}

/**
 * The fetch of the OAuth flow itself. The server's own origin, loopback (only for a server on this
 * machine: a remote server's metadata must not aim the flow at a local port), and hosts the privacy
 * policy allows over https (the authorization server is external communication too); no redirect
 * followed, so metadata cannot send the flow somewhere unchecked.
 */
export function signInFetch(endpoint: RemoteEndpoint, privacy: PrivacyPolicy, fetchImpl: FetchLike = fetch): FetchLike {
  return (input, init) => {
    let url: URL;
    try {
      url = new URL(String(input));
    } catch {
      return Promise.reject(new Error('a sign-in request to an invalid address was refused'));
    }
    const local = isLoopbackHostname(url.hostname);
    if (local && !endpoint.local && url.origin !== endpoint.origin) {
      return Promise.reject(new Error(`signing in to ${endpoint.display} was refused: its sign-in pointed at ${url.host} on this machine, which a remote server may not reach`));
    }
    const allowed = url.origin === endpoint.origin || local || (url.protocol === 'https:' && isHostAllowed(privacy, url.host));
    if (!allowed) {
      return Promise.reject(new Error(`signing in to ${endpoint.display} needs ${url.host}, which the workspace privacy policy does not allow; allow that host in the workspace settings`));
    }
    return fetchImpl(input, { ...init, redirect: 'manual' });
  };
}
