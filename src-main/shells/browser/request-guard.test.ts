import { describe, expect, it } from 'vitest';
import { tokenFromHash, webSocketProtocols } from '@shared/contracts/bridge';
import { isAllowedHost, isAllowedOrigin, newToken, offeredProtocols, tokenFromProtocols, tokensEqual } from './request-guard';

describe('request guard', () => {
  it.each([
    ['127.0.0.1:4000', true],
    ['localhost:4000', true],
    ['LOCALHOST:4000', true],
    ['127.0.0.1', false],
    ['127.0.0.1:4001', false],
    ['evil.example:4000', false],
    ['localhost.evil.example:4000', false],
    ['[::1]:4000', false],
    [undefined, false],
  ])('Host %s on port 4000 → %s', (hostHeader, allowed) => {
    expect(isAllowedHost(hostHeader, 4000)).toBe(allowed);
  });

  it.each([
    ['http://127.0.0.1:4000', true],
    ['http://localhost:4000', true],
    ['http://127.0.0.1:4000/', false],
    ['https://127.0.0.1:4000', false],
    ['http://127.0.0.1', false],
    ['null', false],
    ['http://evil.example', false],
    [undefined, false],
  ])('Origin %s on port 4000 → %s', (origin, allowed) => {
    expect(isAllowedOrigin(origin, 4000)).toBe(allowed);
  });

  it('reads the token only when offered beside the protocol name, exactly once', () => {
    const token = newToken();
    expect(tokenFromProtocols(offeredProtocols(webSocketProtocols(token).join(', ')))).toBe(token);
    expect(tokenFromProtocols(offeredProtocols(['steward.v1', `steward.token.${token}`]))).toBe(token);
    expect(tokenFromProtocols([`steward.token.${token}`])).toBeNull();
    expect(tokenFromProtocols(['steward.v1'])).toBeNull();
    expect(tokenFromProtocols(['steward.v1', 'steward.token.a', 'steward.token.b'])).toBeNull();
  });

  it('compares tokens exactly, whatever their lengths', () => {
    const token = newToken();
    expect(tokensEqual(token, token)).toBe(true);
    expect(tokensEqual(token.slice(1), token)).toBe(false);
    expect(tokensEqual('', token)).toBe(false);
  });

  it('the page finds the token in its URL fragment', () => {
    expect(tokenFromHash('#token=abc_DEF-123')).toBe('abc_DEF-123');
    expect(tokenFromHash('#/runs&token=xyz')).toBe('xyz');
    expect(tokenFromHash('#/runs')).toBeNull();
    expect(tokenFromHash('')).toBeNull();
  });
});
