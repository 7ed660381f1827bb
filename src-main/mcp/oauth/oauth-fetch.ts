import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isLoopbackHostname } from '@shared/contracts/model-url';
import { isHostAllowed, type PrivacyPolicy } from '@shared/policy/privacy';
import type { RemoteEndpoint } from '../remote-endpoint';
import { SignInRequiredError, type KeychainOAuthProvider } from './keychain-oauth-provider';

/** Wraps the fetch a remote connection sends its MCP requests with. */
export type RemoteAuth = (mcpFetch: FetchLike) => FetchLike;

export interface OAuthFetchOptions {
  /** Loaded on first use; a run on a machine without a keychain still reaches servers that need no sign-in. */
  provider: () => Promise<KeychainOAuthProvider>;
  endpoint: RemoteEndpoint;
  /** Where discovery, registration and token requests may go (signInFetch). */
  authFetch: FetchLike;
  /** During a sign-in: the authorization code the browser brings back. Absent in a run. */
  awaitCode?: () => Promise<string>;
  /** Each access token before it is first sent (a run registers it with its secret masking). */
  onToken?: (token: string) => void;
}

/**
 * The MCP authorization flow around a remote connection's requests, with the SDK's `auth()` doing
 * the protocol. Each request carries the stored access token; a token at its expiry is refreshed
 * first; a 401 (or a 403 `insufficient_scope`) runs `auth()` with what the server's
 * `WWW-Authenticate` says (resource metadata, scope) and sends the request once more. In a sign-in
 * the browser round trip happens inside that step; in a run it cannot, and the request fails with
 * SignInRequiredError. One flow at a time: concurrent refusals wait for it.
 */
export function oauthFetch(options: OAuthFetchOptions): RemoteAuth {
  const serverUrl = options.endpoint.url;
  let loaded: Promise<KeychainOAuthProvider> | undefined;
  let flow: Promise<void> | undefined;
  let lastToken: string | undefined;
  const provider = () => (loaded ??= options.provider());

  const authorize = async (p: KeychainOAuthProvider, hint: { resourceMetadataUrl?: URL; scope?: string }): Promise<void> => {
    const base = { serverUrl, resourceMetadataUrl: hint.resourceMetadataUrl, scope: hint.scope, fetchFn: options.authFetch };
    // A run with no sign-in stored has nothing to refresh: it stops before registering a client.
    if (!options.awaitCode && p.clientInformation() === undefined) throw p.signInRequired('nobody has signed in to it yet');
    const first = await auth(p, base);
    if (first === 'AUTHORIZED') return;
    if (!options.awaitCode) throw new SignInRequiredError('sign-in needed');
    const authorizationCode = await options.awaitCode();
    const second = await auth(p, { ...base, authorizationCode });
    if (second !== 'AUTHORIZED') throw new SignInRequiredError('the authorization server did not issue a token');
  };
  const once = (run: () => Promise<void>): Promise<void> => {
    flow ??= run().finally(() => {
      flow = undefined;
    });
    return flow;
  };

  return (next) => async (input, init) => {
    if (flow) await flow.catch(() => undefined);
    let p: KeychainOAuthProvider | undefined;
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
    if (live.needsRefresh()) await once(() => authorize(live, {}));
    const send = () => {
      const token = live.tokens()?.access_token;
      if (token !== undefined && token !== lastToken) {
        lastToken = token;
        options.onToken?.(token);
      }
      return next(input, withBearer(init, token));
    };
    const response = await send();
    const { resourceMetadataUrl, scope, error } = extractWWWAuthenticateParams(response);
    const refused = response.status === 401 || (response.status === 403 && error === 'insufficient_scope');
    if (!refused) return response;
    await response.body?.cancel().catch(() => undefined);
    await once(() => authorize(live, { resourceMetadataUrl, scope }));
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
