import { describe, expect, it } from 'vitest';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { LOCAL_ONLY } from '@shared/policy/privacy';
import { allowedRemoteEndpoint } from '../remote-endpoint';
import { SignInRequiredError } from './keychain-oauth-provider';
import type { FlowProvider } from './machine-client';
import { oauthFetch, type AuthHint } from './oauth-fetch';
import { recordedConsent, type ElicitationRecord } from '../recorded-elicitation';
import { ConsentRefusedError } from './app-consent';
import type { ConsentAction } from './sign-in';

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

describe('a consent in the run\'s trace', () => {
  // A planted authorization link: its state, challenge and client must never reach an event.
  const link = new URL('http://127.0.0.1:9/authorize?response_type=code&client_id=planted-client-1f3a&state=planted-state-9c2e&code_challenge=planted-challenge-77d1&scope=mcp%3Abasic+mcp%3Awrite');
  const why = 'it asks for access to mcp:basic mcp:write';
  const recorder = () => {
    const events: ElicitationRecord[] = [];
    return { events, run: { mask: (text: string) => text.replace('mcp:write', '••••'), emit: (e: ElicitationRecord) => events.push(e) } };
  };

  it('a page shown without asking (the terminal) is recorded as the page ends: accept with a code, decline when the authorization server says the person refused, cancel when nobody came back', async () => {
    for (const action of ['accept', 'decline', 'cancel'] as const satisfies readonly ConsentAction[]) {
      const { events, run } = recorder();
      let end: (a: ConsentAction) => void = () => undefined;
      const settled = new Promise<ConsentAction>((resolve) => (end = resolve));
      await recordedConsent(async () => undefined, run)('s', link, why, settled);
      // Nothing is recorded while the page is open.
      expect(events).toEqual([]);
      end(action);
      await settled;
      expect(events).toEqual([{ type: 'mcp.elicitation', server: 's', mode: 'url', message: 'MCP server "s" asks for more access: mcp:basic and ••••.', fields: [], action, asked_for: 'authorization' }]);
    }
  });

  it('a consent the person declines or leaves unanswered (the app\'s card) is recorded so, and the refusal still ends the call; no part of the link is recorded', async () => {
    const all: ElicitationRecord[] = [];
    for (const [thrown, action] of [
      [new ConsentRefusedError('you declined', 'decline'), 'decline'],
      [new ConsentRefusedError('the run stopped before you answered', 'cancel'), 'cancel'],
      [new Error('the browser could not be opened'), 'cancel'],
    ] as const) {
      const { events, run } = recorder();
      await expect(recordedConsent(() => Promise.reject(thrown), run)('s', link, 'its sign-in is missing or has expired', Promise.resolve('cancel'))).rejects.toBe(thrown);
      expect(events).toEqual([{ type: 'mcp.elicitation', server: 's', mode: 'url', message: 'MCP server "s" needs you to sign in again (its sign-in is missing or has expired).', fields: [], action, asked_for: 'authorization' }]);
      all.push(...events);
    }
    const traced = JSON.stringify(all);
    for (const planted of ['planted-client-1f3a', 'planted-state-9c2e', 'planted-challenge-77d1', '127.0.0.1:9', 'authorize']) expect(traced).not.toContain(planted);
  });
});
