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
});
