import { describe, expect, it } from 'vitest';
import { CLIENT_METADATA_URL_ENV, clientMetadataDocument, configuredClientMetadataUrl } from './client-metadata';
import { KeychainOAuthProvider } from './keychain-oauth-provider';
import { OAuthRecordStore } from './oauth-record';
import { mcpCommand } from './sign-in-command';
import type { CredentialStore } from '../../credentials/credential-store';

/**
 * Client ID metadata documents (SEP-991): with an address configured, a sign-in names Steward by
 * it where the authorization server supports such documents (the SDK's auth() falls back to dynamic
 * registration where it does not). The suite's `auth/basic-cimd` runs the sign-in end to end
 * (conformance/); here the setting, the document a person hosts, and the provider's offer.
 */
const URL_ = 'https://example.org/steward/client.json';

/** Stands in for the keychain: these tests read and write no credential. */
const noStore: CredentialStore = {
  list: async () => [],
  set: async () => undefined,
  get: async () => undefined,
  delete: async () => false,
};

describe('client ID metadata documents', () => {
  it('reads the address from the setting, and refuses one that cannot be a document address, in words', () => {
    expect(configuredClientMetadataUrl({})).toBeUndefined();
    expect(configuredClientMetadataUrl({ [CLIENT_METADATA_URL_ENV]: ` ${URL_} ` })).toBe(URL_);
    expect(() => configuredClientMetadataUrl({ [CLIENT_METADATA_URL_ENV]: 'http://example.org/client.json' })).toThrow(`${CLIENT_METADATA_URL_ENV} must be an https:// address with a path`);
    expect(() => configuredClientMetadataUrl({ [CLIENT_METADATA_URL_ENV]: 'https://example.org/' })).toThrow('fix or unset it to sign in');
  });

  it('the document names Steward by its own address, as a public native client with a loopback redirect', () => {
    expect(clientMetadataDocument(URL_)).toEqual({
      client_id: URL_,
      client_name: 'Steward',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    });
  });

  it('`steward mcp client-metadata URL` prints the document to host', async () => {
    let out = '';
    const code = await mcpCommand(['client-metadata', URL_], { stdout: (t) => (out += t), stderr: () => undefined, openBrowser: () => undefined }, noStore);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ client_id: URL_, client_name: 'Steward' });
    let err = '';
    expect(await mcpCommand(['client-metadata', 'http://x.example/c.json'], { stdout: () => undefined, stderr: (t) => (err += t), openBrowser: () => undefined }, noStore)).toBe(2);
    expect(err).toContain('must be an https:// address');
  });

  it('the sign-in offers the address to the SDK, except for a client registered beforehand', async () => {
    const records = new OAuthRecordStore(noStore, 'https://mcp.example/');
    expect((await KeychainOAuthProvider.load(records, 's', { clientMetadataUrl: URL_ })).clientMetadataUrl).toBe(URL_);
    expect((await KeychainOAuthProvider.load(records, 's')).clientMetadataUrl).toBeUndefined();
    expect((await KeychainOAuthProvider.load(records, 's', { clientMetadataUrl: URL_, preRegistered: async () => ({ client_id: 'given' }) })).clientMetadataUrl).toBeUndefined();
  });
});
