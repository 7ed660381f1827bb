import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOKEN_PATTERN } from '@shared/contracts/bridge';
import { keptSessionToken, tokenFile } from './session-token';

/** Issue 28: a page of this data folder reconnects by itself after a restart, because the token is the folder's. */

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe('the data folder keeps the browser session token', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-token-'));
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('a first start creates the token in a file only the user can read; every later start gets the same token', () => {
    const first = keptSessionToken(dataDir);
    expect(first.kind).toBe('created');
    expect(first.token).toMatch(TOKEN_PATTERN);
    expect(fs.readFileSync(tokenFile(dataDir), 'utf8')).toBe(`${first.token}\n`);
    if (process.platform !== 'win32') expect(modeOf(tokenFile(dataDir))).toBe(0o600);

    expect(keptSessionToken(dataDir)).toEqual({ kind: 'kept', token: first.token });
    expect(keptSessionToken(dataDir)).toEqual({ kind: 'kept', token: first.token });
    // Written whole: no temporary file is left beside it.
    expect(fs.readdirSync(dataDir)).toEqual(['browser-token']);
  });

  it('another data folder has another token', () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-token-other-'));
    try {
      expect(keptSessionToken(other).token).not.toBe(keptSessionToken(dataDir).token);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('a deleted file rotates the token (every open page is signed out)', () => {
    const first = keptSessionToken(dataDir).token;
    fs.rmSync(tokenFile(dataDir));
    const second = keptSessionToken(dataDir);
    expect(second.kind).toBe('created');
    expect(second.token).not.toBe(first);
  });

  it('a damaged file (empty, half written, not a token) is replaced by a new token, and says why', () => {
    for (const damaged of ['', 'abc\n', 'has spaces and is long enough to pass\n', 'x'.repeat(200)]) {
      fs.writeFileSync(tokenFile(dataDir), damaged, { mode: 0o600 });
      const result = keptSessionToken(dataDir);
      expect(result).toMatchObject({ kind: 'created', replaced: 'it did not hold a token' });
      expect(fs.readFileSync(tokenFile(dataDir), 'utf8')).toBe(`${result.token}\n`);
    }
  });

  it.skipIf(process.platform === 'win32')('a token file other accounts could read is never used: a new one replaces it, 0600', () => {
    const leaked = keptSessionToken(dataDir).token;
    fs.chmodSync(tokenFile(dataDir), 0o644);
    const result = keptSessionToken(dataDir);
    expect(result).toMatchObject({ kind: 'created', replaced: expect.stringContaining('mode 0644') });
    expect(result.token).not.toBe(leaked);
    expect(modeOf(tokenFile(dataDir))).toBe(0o600);
  });

  it.skipIf(process.platform === 'win32')('a symbolic link in its place is never followed: the link is replaced, its target untouched', () => {
    const elsewhere = path.join(dataDir, 'elsewhere.txt');
    const planted = 'PLANTED_TOKEN_abcdefghijklmnop';
    fs.writeFileSync(elsewhere, planted, { mode: 0o600 });
    fs.symlinkSync(elsewhere, tokenFile(dataDir));
    const result = keptSessionToken(dataDir);
    expect(result).toMatchObject({ kind: 'created', replaced: expect.stringContaining('symbolic link') });
    expect(result.token).not.toBe(planted);
    expect(fs.lstatSync(tokenFile(dataDir)).isFile()).toBe(true);
    expect(fs.readFileSync(elsewhere, 'utf8')).toBe(planted);
  });

  it.skipIf(process.platform === 'win32' || process.getuid?.() === 0)('a data folder it cannot write to still gets a token for this launch, with the problem said', () => {
    fs.chmodSync(dataDir, 0o500);
    try {
      const result = keptSessionToken(dataDir);
      expect(result.kind).toBe('unkept');
      expect(result.token).toMatch(TOKEN_PATTERN);
      if (result.kind === 'unkept') expect(result.problem).toContain(`could not keep the access token in ${tokenFile(dataDir)}`);
    } finally {
      fs.chmodSync(dataDir, 0o700);
    }
  });
});
