import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy as browserPolicy } from './browser/request-guard';
import { contentSecurityPolicy } from './content-security-policy';

describe('content security policy', () => {
  it('the Electron page gets the same strict policy as the browser page, minus the WebSocket it does not use', () => {
    const electron = contentSecurityPolicy([]);
    expect(electron).toBe(browserPolicy(4321).replace(' ws://127.0.0.1:4321 ws://localhost:4321', ''));
    for (const directive of ["default-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'none'", "connect-src 'self'"]) {
      expect(electron.split('; ')).toContain(directive);
    }
  });

  it('never allows inline or evaluated script, nor any remote source', () => {
    for (const policy of [contentSecurityPolicy([]), browserPolicy(1)]) {
      expect(policy).not.toMatch(/script-src/); // scripts fall back to default-src 'self'
      expect(policy).not.toMatch(/unsafe-eval|https?:|\*/);
      expect(policy.split('; ').find((d) => d.startsWith('default-src'))).toBe("default-src 'self'");
    }
  });
});
