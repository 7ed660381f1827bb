import { describe, expect, it } from 'vitest';
import { allowedRemoteEndpoint } from '../remote-endpoint';
import { signInFetch } from './oauth-fetch';

/** Records where the sign-in flow would have gone; answers every request it lets through. */
function recorder() {
  const seen: string[] = [];
  const fetchImpl = (input: string | URL | Request) => {
    seen.push(String(input));
    return Promise.resolve(new Response('{}', { status: 200 }));
  };
  return { seen, fetchImpl };
}

function endpointOf(address: string, allowed: string[]) {
  const result = allowedRemoteEndpoint('srv', address, { allowed_hosts: allowed });
  if (!result.ok) throw new Error(result.message);
  return result.endpoint;
}

describe('the sign-in flow of a remote MCP server', () => {
  it('never reaches a port on this machine when the server is remote (its metadata cannot aim the flow at localhost)', async () => {
    const { seen, fetchImpl } = recorder();
    const go = signInFetch(endpointOf('https://mcp.example.com/mcp', ['mcp.example.com']), { allowed_hosts: ['mcp.example.com'] }, fetchImpl);
    for (const target of ['http://127.0.0.1:6379/register', 'http://localhost:8080/token', 'http://[::1]:5432/authorize']) {
      await expect(go(target)).rejects.toThrow(/on this machine, which a remote server may not reach/);
    }
    expect(seen).toEqual([]);
  });

  it('still reaches the server itself and an allowed https authorization server', async () => {
    const { seen, fetchImpl } = recorder();
    const go = signInFetch(endpointOf('https://mcp.example.com/mcp', ['mcp.example.com', 'auth.example.com']), { allowed_hosts: ['mcp.example.com', 'auth.example.com'] }, fetchImpl);
    await go('https://mcp.example.com/.well-known/oauth-protected-resource');
    await go('https://auth.example.com/token');
    await expect(go('https://elsewhere.example.net/token')).rejects.toThrow(/does not allow/);
    expect(seen).toEqual(['https://mcp.example.com/.well-known/oauth-protected-resource', 'https://auth.example.com/token']);
  });

  it('a server on this machine may use an authorization server on another local port', async () => {
    const { seen, fetchImpl } = recorder();
    const go = signInFetch(endpointOf('http://127.0.0.1:4100/mcp', []), { allowed_hosts: [] }, fetchImpl);
    await go('http://127.0.0.1:4200/token');
    expect(seen).toEqual(['http://127.0.0.1:4200/token']);
  });
});
