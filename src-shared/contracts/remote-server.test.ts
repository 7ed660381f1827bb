import { describe, expect, it } from 'vitest';
import { ServerRegistration } from './host-registry';
import { ONE_TRANSPORT_MESSAGE } from './remote-server';
import { McpServerSpec } from './spec';

const issues = (value: unknown) => {
  const parsed = McpServerSpec.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
};

describe('a remote server entry', () => {
  it('a server is exactly one of package, command or url', () => {
    expect(McpServerSpec.safeParse({ id: 'r', url: 'https://mcp.example.com/mcp' }).success).toBe(true);
    expect(issues({ id: 'r', url: 'https://mcp.example.com/mcp', command: 'x' })).toEqual([{ path: '', message: ONE_TRANSPORT_MESSAGE }]);
    expect(issues({ id: 'r', url: 'https://mcp.example.com/mcp', package: 'p' })).toEqual([{ path: '', message: ONE_TRANSPORT_MESSAGE }]);
    expect(issues({ id: 'r' })).toEqual([{ path: '', message: ONE_TRANSPORT_MESSAGE }]);
  });

  it('headers take keychain references; a pasted secret is refused naming the header', () => {
    expect(McpServerSpec.parse({ id: 'r', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'keychain:remote-token' } }).headers).toEqual({ Authorization: 'keychain:remote-token' });
    const refused = issues({ id: 'r', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer abc123' } });
    expect(refused).toEqual([{ path: 'headers.Authorization', message: expect.stringMatching(/^headers\.Authorization must be a keychain reference \(keychain:NAME\)/) }]);
    expect(refused[0]?.message).not.toContain('abc123');
  });

  it('headers the transport sets, and headers on a stdio server, are refused', () => {
    expect(issues({ id: 'r', url: 'https://mcp.example.com/mcp', headers: { 'Mcp-Session-Id': 'keychain:x' } })[0]?.message).toMatch(/set by the MCP transport/);
    expect(issues({ id: 'r', command: 'x', headers: { Authorization: 'keychain:x' } })).toEqual([{ path: 'headers', message: expect.stringMatching(/remote \(url\) server/) }]);
    expect(issues({ id: 'r', url: 'https://mcp.example.com/mcp', env: { A: 'keychain:x' } })).toEqual([{ path: 'env', message: expect.stringMatching(/takes no env/) }]);
    expect(issues({ id: 'r', url: 'https://mcp.example.com/mcp', args: ['--x'] })).toEqual([{ path: 'args', message: expect.stringMatching(/takes no args/) }]);
  });

  it('an address two parsers could read differently, or with a secret in it, is refused on arrival', () => {
    for (const url of ['http://127.0.0.1@evil.example/', 'http://user:pw@host/', 'ftp://host/', 'http://host/#x', 'http://0x7f.1/', 'http://host\\@evil/']) {
      expect(issues({ id: 'r', url }), url).toHaveLength(1);
    }
    expect(issues({ id: 'r', url: 'https://mcp.example.com/mcp?api_key=abc' })[0]?.message).toMatch(/a header to keychain:NAME/);
    expect(McpServerSpec.safeParse({ id: 'r', url: 'http://[::1]:8080/mcp' }).success).toBe(true);
  });

  it('a registration of a remote server carries url and headers', () => {
    const reg = ServerRegistration.parse({ id: 'remote', label: 'Remote', url: 'https://mcp.example.com/mcp', headers: { 'X-Api-Key': 'keychain:k' } });
    expect(reg).toMatchObject({ url: 'https://mcp.example.com/mcp', headers: { 'X-Api-Key': 'keychain:k' }, args: [], env: {} });
    expect(ServerRegistration.safeParse({ id: 'remote', label: 'Remote', url: 'https://mcp.example.com/mcp', headers: { 'X-Api-Key': 'sk-live-1234567890abcdef' } }).success).toBe(false);
  });
});
