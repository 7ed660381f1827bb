import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { createKeychainStore } from '../../credentials/keychain-store';
import { KeychainOAuthProvider, SignInRequiredError } from './keychain-oauth-provider';
import { OAuthRecordStore } from './oauth-record';

/**
 * Credentials keyed by issuer (SEP-2352): what a sign-in stored belongs to the authorization server
 * that issued it, and is neither presented to nor refreshed at another one. A server whose
 * protected-resource metadata now names a new authorization server stops a run with the reason in
 * words; a sign-in registers with the new one and its credentials replace the old ones. Entries from
 * before the issuer key (the SDK had stamped the issuer on their client and tokens) keep working and
 * are keyed in place. The suite's `auth/authorization-server-migration` runs the whole move through
 * `steward mcp sign-in` and `steward run` (conformance/); here the rules, over the real OS keychain
 * (Secret Service under D-Bus, as CI runs every test).
 */
const hasSessionBus = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
const store = createKeychainStore({ service: `steward-test-${randomBytes(6).toString('hex')}` });
afterAll(async () => {
  if (hasSessionBus) for (const name of await store.list()) await store.delete(name);
});

const OLD_AS = 'https://old-as.example/';
const NEW_AS = 'https://new-as.example/';
const interaction = { redirectUrl: 'http://127.0.0.1:1/callback', state: 's', open: () => Promise.resolve() };

function discovered(issuer: string): OAuthDiscoveryState {
  return {
    authorizationServerUrl: issuer,
    resourceMetadata: { resource: 'https://mcp.example/', authorization_servers: [issuer.slice(0, -1)] },
    authorizationServerMetadata: { issuer: issuer.slice(0, -1), authorization_endpoint: `${issuer}authorize`, token_endpoint: `${issuer}token`, response_types_supported: ['code'] },
  };
}

/** A sign-in as Steward stored it before the issuer key: the SDK's stamps on client and tokens only. */
function legacyEntry(issuer: string | undefined): string {
  const stamp = issuer === undefined ? {} : { issuer };
  return JSON.stringify({
    client: { client_id: 'old-client', redirect_uris: [interaction.redirectUrl], ...stamp },
    tokens: { access_token: 'old-access', token_type: 'bearer', refresh_token: 'old-refresh', ...stamp },
  });
}

describe.skipIf(!hasSessionBus)('OAuth credentials keyed by (server, issuer) in the keychain (needs a D-Bus session with a Secret Service; skipped without one)', () => {
  it('an entry from before the issuer key is keyed in place, and a run against the same authorization server keeps using it', async () => {
    const records = new OAuthRecordStore(store, 'https://mcp.example/upgraded');
    await store.set(records.name, legacyEntry(OLD_AS));
    const p = await KeychainOAuthProvider.load(records, 'upgraded');
    expect(JSON.parse((await store.get(records.name)) ?? '{}')).toMatchObject({ issuer: OLD_AS, client: { client_id: 'old-client' } });
    expect(p.tokens()?.access_token).toBe('old-access');
    p.saveDiscoveryState(discovered(OLD_AS));
    expect(p.clientInformation()?.client_id).toBe('old-client');
    expect(p.tokens()?.refresh_token).toBe('old-refresh');
  });

  it('a run whose server now names another authorization server stops, saying so in words, and presents it nothing', async () => {
    const records = new OAuthRecordStore(store, 'https://mcp.example/moved');
    await store.set(records.name, legacyEntry(OLD_AS));
    const p = await KeychainOAuthProvider.load(records, 'moved');
    let refusal: unknown;
    try {
      p.saveDiscoveryState(discovered(NEW_AS));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(SignInRequiredError);
    expect(String(refusal)).toContain(`MCP server "moved" needs you to sign in (it now uses the authorization server ${NEW_AS} instead of ${OLD_AS}, where you signed in`);
    expect(String(refusal)).toContain('steward mcp sign-in');
    expect(p.clientInformation()).toBeUndefined();
    expect(p.tokens()).toBeUndefined();
    expect(p.needsRefresh()).toBe(false);
    // Nothing was thrown away: signing in again replaces it.
    expect((await records.read()).tokens?.access_token).toBe('old-access');
  });

  it('a sign-in with the new authorization server registers anew, and its credentials replace the old ones, keyed by the new issuer', async () => {
    const records = new OAuthRecordStore(store, 'https://mcp.example/signed-in-again');
    await store.set(records.name, legacyEntry(OLD_AS));
    const p = await KeychainOAuthProvider.load(records, 'signed-in-again', { interaction });
    p.saveDiscoveryState(discovered(NEW_AS));
    expect(p.clientInformation()).toBeUndefined();
    expect(p.tokens()).toBeUndefined();
    await p.saveClientInformation({ client_id: 'new-client', redirect_uris: [interaction.redirectUrl], issuer: NEW_AS });
    await p.redirectToAuthorization(new URL(`${NEW_AS}authorize?scope=mcp%3Abasic`));
    await p.saveTokens({ access_token: 'new-access', token_type: 'bearer', issuer: NEW_AS });
    const stored = await records.read();
    expect(stored).toMatchObject({ issuer: NEW_AS, client: { client_id: 'new-client' }, tokens: { access_token: 'new-access' }, scope: 'mcp:basic' });
    // The old authorization server's refresh token did not survive into the new sign-in.
    expect(JSON.stringify(stored)).not.toContain('old-');
  });

  it('an entry that cannot say which authorization server issued it is used at the server, but never presented to an authorization server by a run', async () => {
    const records = new OAuthRecordStore(store, 'https://mcp.example/unstamped');
    await store.set(records.name, legacyEntry(undefined));
    const p = await KeychainOAuthProvider.load(records, 'unstamped');
    expect(p.tokens()?.access_token).toBe('old-access');
    expect(() => p.saveDiscoveryState(discovered(OLD_AS))).toThrow('its stored sign-in does not say which authorization server issued it');
    expect(p.clientInformation()).toBeUndefined();
  });

  it('a client registered beforehand for one authorization server (oauth.issuer) is not presented to another', async () => {
    const records = new OAuthRecordStore(store, 'https://mcp.example/pre-registered');
    const p = await KeychainOAuthProvider.load(records, 'pre-registered', { interaction, preRegistered: async () => ({ client_id: 'issued-by-old' }), preRegisteredIssuer: OLD_AS.slice(0, -1) });
    p.saveDiscoveryState(discovered(OLD_AS));
    expect(p.clientInformation()?.client_id).toBe('issued-by-old');
    p.saveDiscoveryState(discovered(NEW_AS));
    expect(() => p.clientInformation()).toThrow(`now names the authorization server ${NEW_AS}, but its OAuth client was registered with ${OLD_AS.slice(0, -1)} (oauth.issuer)`);
  });
});
