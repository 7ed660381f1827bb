import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createKeychainStore } from '../../credentials/keychain-store';
import { authorizationResponseIssuerRefusal, metadataIssuerRefusal, recordedIssuerOf } from './issuer-check';
import { KeychainOAuthProvider } from './keychain-oauth-provider';
import { SignInFailedError, startLoopbackRedirect } from './loopback-redirect';
import { OAuthRecordStore } from './oauth-record';

const AS = 'https://auth.example';
const advertised = { issuer: AS, issParameterSupported: true };
const unadvertised = { issuer: AS, issParameterSupported: false };

describe('RFC 8414 §3.3: the metadata names the issuer it was fetched for', () => {
  it('accepts the same issuer, with or without one trailing slash (the well-known address is the same)', () => {
    expect(metadataIssuerRefusal(AS, AS)).toBeUndefined();
    expect(metadataIssuerRefusal(`${AS}/`, AS)).toBeUndefined();
    expect(metadataIssuerRefusal(`${AS}/tenant`, `${AS}/tenant/`)).toBeUndefined();
  });

  it('refuses metadata naming another issuer, in words, saying nothing was stored', () => {
    const refusal = metadataIssuerRefusal(`${AS}/`, 'https://attacker.example.com');
    expect(refusal).toBe(
      'The sign-in was stopped: the authorization server\'s metadata says it is "https://attacker.example.com" but Steward fetched it for "https://auth.example/" (RFC 8414); its addresses were not used and nothing was stored.',
    );
    expect(metadataIssuerRefusal(AS, `${AS}/other`)).toContain('RFC 8414');
    expect(metadataIssuerRefusal(AS, undefined)).toContain('names no issuer');
  });
});

describe("RFC 9207: the authorization response's iss", () => {
  it('accepts the recorded issuer exactly, and an absent iss when the server does not advertise it', () => {
    expect(authorizationResponseIssuerRefusal(advertised, AS)).toBeUndefined();
    expect(authorizationResponseIssuerRefusal(unadvertised, AS)).toBeUndefined();
    expect(authorizationResponseIssuerRefusal(unadvertised, undefined)).toBeUndefined();
  });

  it('refuses a missing iss when the metadata says the server sends it', () => {
    expect(authorizationResponseIssuerRefusal(advertised, undefined)).toBe(
      'The sign-in was stopped: the authorization server "https://auth.example" says it names itself in its answer, and this answer did not (RFC 9207); nothing was stored.',
    );
  });

  it('refuses a wrong iss', () => {
    expect(authorizationResponseIssuerRefusal(advertised, 'https://evil.example')).toBe(
      'The sign-in was stopped: the authorization server answered as "https://evil.example" but Steward asked "https://auth.example" (RFC 9207); nothing was stored.',
    );
  });

  it('compares a present iss even when the server does not advertise it', () => {
    expect(authorizationResponseIssuerRefusal(unadvertised, 'https://evil.example')).toContain('answered as "https://evil.example"');
  });

  it('applies no URL normalization: a trailing slash, case or default port differ', () => {
    expect(authorizationResponseIssuerRefusal(advertised, `${AS}/`)).toContain('RFC 9207');
    expect(authorizationResponseIssuerRefusal(advertised, 'HTTPS://auth.example')).toContain('RFC 9207');
    expect(authorizationResponseIssuerRefusal(advertised, 'https://auth.example:443')).toContain('RFC 9207');
  });

  it('has nothing to compare with when no metadata was recorded (the 2025-03-26 fallback)', () => {
    expect(authorizationResponseIssuerRefusal(undefined, 'https://evil.example')).toBeUndefined();
  });

  it('reads the recorded issuer and its iss support from metadata', () => {
    expect(recordedIssuerOf({ issuer: AS, authorization_response_iss_parameter_supported: true })).toEqual(advertised);
    expect(recordedIssuerOf({ issuer: AS })).toEqual(unadvertised);
    expect(recordedIssuerOf({})).toBeUndefined();
    expect(recordedIssuerOf(undefined)).toBeUndefined();
  });
});

describe('the loopback redirect checks iss before it hands over the code', () => {
  it('stops the sign-in with the refusal, and the page says so', async () => {
    const redirect = await startLoopbackRedirect(undefined, (iss) => authorizationResponseIssuerRefusal(advertised, iss));
    try {
      // Settled as soon as the browser arrives, before the test looks: caught at once.
      const outcome = redirect.code(5_000).then(
        (code) => code,
        (error: unknown) => error,
      );
      const response = await fetch(`${redirect.redirectUrl}?code=c1&state=${redirect.state}&iss=${encodeURIComponent('https://evil.example')}`);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain('The sign-in was stopped');
      const error = await outcome;
      expect(error).toBeInstanceOf(SignInFailedError);
      expect((error as Error).message).toContain('answered as "https://evil.example" but Steward asked "https://auth.example"');
    } finally {
      await redirect.close();
    }
  });

  it('hands over the code when iss matches', async () => {
    const redirect = await startLoopbackRedirect(undefined, (iss) => authorizationResponseIssuerRefusal(advertised, iss));
    try {
      const arrived = redirect.code(5_000);
      const response = await fetch(`${redirect.redirectUrl}?code=c1&state=${redirect.state}&iss=${encodeURIComponent(AS)}`);
      expect(response.status).toBe(200);
      await expect(arrived).resolves.toBe('c1');
    } finally {
      await redirect.close();
    }
  });
});

const hasSessionBus = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
const store = createKeychainStore({ service: `steward-test-${randomBytes(6).toString('hex')}` });
afterAll(async () => {
  if (hasSessionBus) for (const name of await store.list()) await store.delete(name);
});

describe.skipIf(!hasSessionBus)('the sign-in provider over the real keychain (needs a D-Bus session with a Secret Service; skipped without one)', () => {
  const interaction = { redirectUrl: 'http://127.0.0.1:1/callback', state: 's', open: () => Promise.resolve() };
  const metadata = { issuer: AS, authorization_endpoint: `${AS}/authorize`, token_endpoint: `${AS}/token`, response_types_supported: ['code'], authorization_response_iss_parameter_supported: true };

  const resourceMetadata = { resource: 'https://mcp.example/', authorization_servers: [AS] };

  it('does not take metadata naming another issuer than the advertised one (RFC 8414), before anything is stored', async () => {
    const records = new OAuthRecordStore(store, 'https://mcp.example/a');
    const p = await KeychainOAuthProvider.load(records, 'a', { interaction });
    expect(() => p.saveDiscoveryState({ authorizationServerUrl: `${AS}/`, resourceMetadata, authorizationServerMetadata: { ...metadata, issuer: 'https://attacker.example.com' } })).toThrow(
      'metadata says it is "https://attacker.example.com" but Steward fetched it for "https://auth.example/"',
    );
    expect(p.discoveryState()).toBeUndefined();
    expect(await records.read()).toEqual({});
  });

  it('has no advertised issuer to hold the metadata to in the 2025-03-26 fallback (no resource metadata)', async () => {
    const p = await KeychainOAuthProvider.load(new OAuthRecordStore(store, 'https://mcp.example/legacy'), 'legacy', { interaction });
    p.saveDiscoveryState({ authorizationServerUrl: 'https://mcp.example/', authorizationServerMetadata: { ...metadata, issuer: 'https://mcp.example/oauth' } });
    expect(p.discoveryState()?.authorizationServerMetadata?.issuer).toBe('https://mcp.example/oauth');
  });

  it('leaves nothing in the keychain when the redirect names another issuer (RFC 9207)', async () => {
    const records = new OAuthRecordStore(store, 'https://mcp.example/b');
    const p = await KeychainOAuthProvider.load(records, 'b', { interaction });
    p.saveDiscoveryState({ authorizationServerUrl: `${AS}/`, resourceMetadata, authorizationServerMetadata: metadata });
    await p.saveClientInformation({ client_id: 'registered-on-the-way', redirect_uris: [interaction.redirectUrl] });
    expect((await records.read()).client?.client_id).toBe('registered-on-the-way');
    expect(p.issuerRefusal('https://evil.example')).toContain('(RFC 9207)');
    expect(await p.undoRefusedSignIn()).toBe(true);
    expect(await records.read()).toEqual({});
    expect(await store.list()).not.toContain(records.name);
  });

  it('keeps a sign-in whose redirect names the right issuer', async () => {
    const records = new OAuthRecordStore(store, 'https://mcp.example/c');
    const p = await KeychainOAuthProvider.load(records, 'c', { interaction });
    p.saveDiscoveryState({ authorizationServerUrl: `${AS}/`, resourceMetadata, authorizationServerMetadata: metadata });
    await p.saveClientInformation({ client_id: 'kept', redirect_uris: [interaction.redirectUrl] });
    expect(p.issuerRefusal(AS)).toBeUndefined();
    expect(await p.undoRefusedSignIn()).toBe(false);
    expect((await records.read()).client?.client_id).toBe('kept');
  });
});
