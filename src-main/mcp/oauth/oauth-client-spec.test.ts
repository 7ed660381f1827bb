import { describe, expect, it } from 'vitest';
import { McpServerSpec } from '@shared/contracts/spec';

describe('a url server’s pre-registered OAuth client in a spec', () => {
  it('takes a client id and a keychain reference for the secret', () => {
    const parsed = McpServerSpec.parse({ id: 'gh', url: 'https://mcp.example.com/mcp', oauth: { client_id: 'steward-app', client_secret: 'keychain:gh-client-secret' } });
    expect(parsed.oauth).toEqual({ client_id: 'steward-app', client_secret: 'keychain:gh-client-secret' });
  });

  it('refuses the secret itself, without echoing it', () => {
    const result = McpServerSpec.safeParse({ id: 'gh', url: 'https://mcp.example.com/mcp', oauth: { client_id: 'steward-app', client_secret: 'sk-live-0123456789abcdef' } });
    expect(result.success).toBe(false);
    const message = JSON.stringify(result.error?.issues);
    expect(message).toContain('oauth.client_secret must be a keychain reference');
    expect(message).not.toContain('sk-live-0123456789abcdef');
  });

  it('is refused on a stdio server', () => {
    const result = McpServerSpec.safeParse({ id: 'fs', command: 'mcp-fs', oauth: { client_id: 'x' } });
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toContain('oauth is for a remote (url) server');
  });

  it('a machine-to-machine client (client_credentials) takes its secret or its private key, as keychain references only', () => {
    const basic = McpServerSpec.parse({ id: 'm2m', url: 'https://mcp.example.com/mcp', oauth: { client_id: 'svc', grant: 'client_credentials', client_secret: 'keychain:svc-secret', issuer: 'https://auth.example.com' } });
    expect(basic.oauth).toMatchObject({ grant: 'client_credentials', client_secret: 'keychain:svc-secret', issuer: 'https://auth.example.com' });
    const jwt = McpServerSpec.parse({ id: 'm2m', url: 'https://mcp.example.com/mcp', oauth: { client_id: 'svc', grant: 'client_credentials', private_key: 'keychain:svc-key', signing_algorithm: 'ES256' } });
    expect(jwt.oauth).toMatchObject({ private_key: 'keychain:svc-key', signing_algorithm: 'ES256' });
    const pasted = McpServerSpec.safeParse({ id: 'm2m', url: 'https://mcp.example.com/mcp', oauth: { client_id: 'svc', grant: 'client_credentials', private_key: '-----BEGIN PRIVATE KEY-----abc' } });
    expect(JSON.stringify(pasted.error?.issues)).toContain('oauth.private_key must be a keychain reference');
    expect(JSON.stringify(pasted.error?.issues)).not.toContain('BEGIN PRIVATE KEY');
  });

  it('a machine-to-machine client needs exactly one way to prove itself; a private key needs that grant', () => {
    const neither = McpServerSpec.safeParse({ id: 'm2m', url: 'https://mcp.example.com/mcp', oauth: { client_id: 'svc', grant: 'client_credentials' } });
    expect(JSON.stringify(neither.error?.issues)).toContain('needs exactly one of oauth.client_secret');
    const both = McpServerSpec.safeParse({ id: 'm2m', url: 'https://mcp.example.com/mcp', oauth: { client_id: 'svc', grant: 'client_credentials', client_secret: 'keychain:a', private_key: 'keychain:b' } });
    expect(both.success).toBe(false);
    const keyForPerson = McpServerSpec.safeParse({ id: 'gh', url: 'https://mcp.example.com/mcp', oauth: { client_id: 'app', private_key: 'keychain:b' } });
    expect(keyForPerson.error?.issues.map((i) => i.message).join('\n')).toContain('set oauth.grant to "client_credentials"');
  });
});
