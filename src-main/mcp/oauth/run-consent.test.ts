import { describe, expect, it } from 'vitest';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { LOCAL_ONLY } from '@shared/policy/privacy';
import { allowedRemoteEndpoint } from '../remote-endpoint';
import { SignInRequiredError } from './keychain-oauth-provider';
import type { FlowProvider } from './machine-client';
import { oauthFetch, type AuthHint } from './oauth-fetch';

/**
 * Scope step-up mid-run (MCP authorization, "Step-up authorization flow"): a server that answers a
 * call 403 `insufficient_scope` gets the person's consent to the wider scope (the page shown by the
 * run's `consent`), and the same request is sent once more under the new token. The suite's
 * `auth/scope-step-up` runs this end to end through `steward run` (conformance/); here the flow's
 * own rules, with a stand-in server answering by token and a stand-in person who consents.
 */
const endpoint = (() => {
  const allowed = allowedRemoteEndpoint('s', 'http://127.0.0.1:9/mcp', LOCAL_ONLY);
  if (!allowed.ok) throw new Error(allowed.message);
  return allowed.endpoint;
})();

/** A sign-in as the keychain holds it: whatever token is current when the provider is loaded. */
function storedSignIn(current: { token: string }): () => Promise<FlowProvider> {
  return async () => {
    const token = current.token;
    return {
      redirectUrl: 'http://127.0.0.1/callback',
      clientMetadata: { redirect_uris: ['http://127.0.0.1/callback'] } satisfies OAuthClientMetadata,
      clientInformation: (): OAuthClientInformationMixed => ({ client_id: 'c' }),
      tokens: (): OAuthTokens => ({ access_token: token, token_type: 'Bearer' }),
      saveTokens: () => undefined,
      redirectToAuthorization: () => {
        throw new SignInRequiredError('a run cannot open a page');
      },
      saveCodeVerifier: () => undefined,
      codeVerifier: () => '',
      needsRefresh: () => false,
      signInRequired: (why: string) => new SignInRequiredError(why),
    };
  };
}

/** The server: `tools/call` needs the wide token; anything else takes either. */
function server(sent: string[]): (input: string | URL, init?: RequestInit) => Promise<Response> {
  return async (_input, init) => {
    const auth = new Headers(init?.headers).get('authorization') ?? '';
    sent.push(auth);
    if (auth === 'Bearer wide') return new Response('{}', { status: 200 });
    return new Response('{"error":"insufficient_scope"}', { status: 403, headers: { 'www-authenticate': 'Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp"' } });
  };
}

describe('a wider scope asked for mid-run', () => {
  it('is put to the person with the scope the server named, and the request goes on under the token they consented to', async () => {
    const current = { token: 'narrow' };
    const hints: AuthHint[] = [];
    const sent: string[] = [];
    const wrap = oauthFetch({
      provider: storedSignIn(current),
      endpoint,
      authFetch: () => Promise.reject(new Error('no discovery is needed for a consent the person gives')),
      consent: async (hint) => {
        hints.push(hint);
        current.token = 'wide';
      },
    });
    const response = await wrap(server(sent))(endpoint.url, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(hints).toEqual([{ scope: 'mcp:basic mcp:write', resourceMetadataUrl: new URL('http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp') }]);
    expect(sent).toEqual(['Bearer narrow', 'Bearer wide']);
  });

  it('a person who does not consent ends the request with the reason, sent once only (no loop)', async () => {
    const sent: string[] = [];
    const wrap = oauthFetch({
      provider: storedSignIn({ token: 'narrow' }),
      endpoint,
      authFetch: () => Promise.reject(new Error('unused')),
      consent: async () => {
        throw new SignInRequiredError('MCP server "s" needed your consent (it asks for access to mcp:basic mcp:write) and it did not come');
      },
    });
    await expect(wrap(server(sent))(endpoint.url, { method: 'POST', body: '{}' })).rejects.toThrow(/needed your consent .*mcp:write/);
    expect(sent).toEqual(['Bearer narrow']);
  });

  it('a run never starts a first sign-in, even where a person could consent: nobody signed in yet fails, saying how', async () => {
    let asked = 0;
    const signedIn = storedSignIn({ token: 'none' });
    const wrap = oauthFetch({
      provider: async () => ({ ...(await signedIn()), clientInformation: () => undefined, signInRequired: (why: string) => new SignInRequiredError(`MCP server "s" needs you to sign in (${why})`) }),
      endpoint,
      authFetch: () => Promise.reject(new Error('unused')),
      consent: async () => {
        asked += 1;
      },
    });
    const unauthorized = async () => new Response('{}', { status: 401, headers: { 'www-authenticate': 'Bearer resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp"' } });
    await expect(wrap(unauthorized)(endpoint.url, { method: 'POST', body: '{}' })).rejects.toThrow('needs you to sign in (nobody has signed in to it yet)');
    expect(asked).toBe(0);
  });
});
