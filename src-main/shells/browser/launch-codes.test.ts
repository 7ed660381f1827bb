import { describe, expect, it } from 'vitest';
import { TOKEN_PATTERN } from '@shared/contracts/bridge';
import { LaunchCodes } from './launch-codes';

const TOKEN = 'session-token-0123456789abcdef';

describe('one-time launch codes', () => {
  it('a code is exchanged for the session token exactly once; the second exchange says it was already used', () => {
    const codes = new LaunchCodes(TOKEN);
    const code = codes.issue();
    expect(code).toMatch(TOKEN_PATTERN);
    expect(code).not.toContain(TOKEN);
    expect(codes.redeem(code)).toEqual({ kind: 'token', token: TOKEN });
    const again = codes.redeem(code);
    expect(again).toMatchObject({ kind: 'refused', code: 'launch_used' });
    expect(again.kind === 'refused' && again.message).toMatch(/already used.*`steward open`.*npm start/s);
    expect(again.kind === 'refused' && again.message).not.toContain('Enter');
  });

  it('a code expires after its time to live, even unused', () => {
    let now = 1_000;
    const codes = new LaunchCodes(TOKEN, { ttlMs: 60_000, now: () => now });
    const code = codes.issue();
    now += 60_001;
    const expired = codes.redeem(code);
    expect(expired).toMatchObject({ kind: 'refused', code: 'launch_expired' });
    expect(expired.kind === 'refused' && expired.message).toMatch(/^This one-time link has expired: a link works within a minute of being made\. Run `steward open` in a terminal/);
    // Expired stays expired: it never turns into a token later.
    expect(codes.redeem(code)).toMatchObject({ kind: 'refused', code: 'launch_expired' });
  });

  it('every code is different, and one code being spent leaves the others usable', () => {
    const codes = new LaunchCodes(TOKEN);
    const first = codes.issue();
    const second = codes.issue();
    expect(first).not.toBe(second);
    expect(codes.redeem(first)).toEqual({ kind: 'token', token: TOKEN });
    expect(codes.redeem(second)).toEqual({ kind: 'token', token: TOKEN });
  });

  it('a code it never issued, and the session token itself, are refused as unknown', () => {
    const codes = new LaunchCodes(TOKEN);
    codes.issue();
    expect(codes.redeem('never-issued-code-0123456789')).toMatchObject({ kind: 'refused', code: 'launch_unknown' });
    expect(codes.redeem(TOKEN)).toMatchObject({ kind: 'refused', code: 'launch_unknown' });
  });

  it('remembers a bounded number of codes: the oldest are forgotten, not the memory exhausted', () => {
    const codes = new LaunchCodes(TOKEN, { maxRemembered: 3 });
    const oldest = codes.issue();
    const kept = [codes.issue(), codes.issue(), codes.issue()];
    expect(codes.redeem(oldest)).toMatchObject({ kind: 'refused', code: 'launch_unknown' });
    for (const code of kept) expect(codes.redeem(code)).toEqual({ kind: 'token', token: TOKEN });
  });
});
