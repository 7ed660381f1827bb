import { describe, expect, it } from 'vitest';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { LOCAL_ONLY } from '@shared/policy/privacy';
import { allowedRemoteEndpoint } from '../remote-endpoint';
import { SignInRequiredError } from './keychain-oauth-provider';
import { oauthFetch, type AuthHint } from './oauth-fetch';
import { unionScopes } from './scope-union';

/**
 * SEP-2350: a re-authorization asks for the scopes asked for before together with the challenged
 * ones, so widening one operation's access does not take another's away. The suite's
 * `auth/scope-step-up` checks it end to end through `steward run` (conformance/).
 */
describe('the union of previously requested and challenged scopes', () => {
  it('keeps the earlier scopes first, adds the new ones in order, none twice', () => {
    expect(unionScopes('mcp:basic', 'mcp:write')).toBe('mcp:basic mcp:write');
    expect(unionScopes('a b', 'b  c a d')).toBe('a b c d');
    expect(unionScopes(undefined, 'mcp:write')).toBe('mcp:write');
    expect(unionScopes('mcp:basic', undefined)).toBe('mcp:basic');
    expect(unionScopes(undefined, '')).toBeUndefined();
  });

  it('is what a run puts to the person when a call needs a wider scope than the sign-in asked for', async () => {
    const allowed = allowedRemoteEndpoint('s', 'http://127.0.0.1:9/mcp', LOCAL_ONLY);
    if (!allowed.ok) throw new Error(allowed.message);
    const current = { token: 'narrow' };
    const hints: AuthHint[] = [];
    const wrap = oauthFetch({
      provider: async () => ({
        redirectUrl: 'http://127.0.0.1/callback',
        clientMetadata: { redirect_uris: ['http://127.0.0.1/callback'] } satisfies OAuthClientMetadata,
        clientInformation: (): OAuthClientInformationMixed => ({ client_id: 'c' }),
        tokens: (): OAuthTokens => ({ access_token: current.token, token_type: 'Bearer' }),
        saveTokens: () => undefined,
        redirectToAuthorization: () => undefined,
        saveCodeVerifier: () => undefined,
        codeVerifier: () => '',
        needsRefresh: () => false,
        signInRequired: (why: string) => new SignInRequiredError(why),
        // What the stored sign-in asked for.
        previousScope: () => 'mcp:basic',
      }),
      endpoint: allowed.endpoint,
      authFetch: () => Promise.reject(new Error('no discovery is needed for a consent the person gives')),
      consent: async (hint) => {
        hints.push(hint);
        current.token = 'wide';
      },
    });
    const server = async (_input: string | URL, init?: RequestInit) =>
      new Headers(init?.headers).get('authorization') === 'Bearer wide'
        ? new Response('{}', { status: 200 })
        : new Response('{}', { status: 403, headers: { 'www-authenticate': 'Bearer error="insufficient_scope", scope="mcp:write"' } });
    expect((await wrap(server)(allowed.endpoint.url, { method: 'POST', body: '{}' })).status).toBe(200);
    expect(hints.map((h) => h.scope)).toEqual(['mcp:basic mcp:write']);
  });
});
