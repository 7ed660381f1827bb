import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOKEN_PATTERN } from '@shared/contracts/bridge';
import { keptSessionToken, tokenFile, type KeptToken } from './session-token';

/** Issue 28: a page of this data folder reconnects by itself after a restart, because the token is the folder's. */

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The account a child process runs as when this one is root (root writes into a 0500 folder anyway). */
const RUN_AS = 'nobody';

/** keptSessionToken in a child process of RUN_AS (under tsx), its result printed as JSON. */
const AS_OTHER_ACCOUNT = `
const { keptSessionToken } = await import(process.argv[1]);
process.stdout.write(JSON.stringify(keptSessionToken(process.argv[2])));
`;

/**
 * keptSessionToken on a data folder its account cannot write to (0500, its own). As root (CI) that
 * takes another account: the folder becomes RUN_AS's and the call runs in a child process as RUN_AS
 * (`runuser`, as the PostgreSQL tests do).
 */
function keptInReadOnlyFolder(dataDir: string): KeptToken {
  if (process.getuid?.() !== 0) {
    fs.chmodSync(dataDir, 0o500);
    try {
      return keptSessionToken(dataDir);
    } finally {
      fs.chmodSync(dataDir, 0o700);
    }
  }
  const id = (flag: '-u' | '-g') => Number(spawnSync('id', [flag, RUN_AS], { encoding: 'utf8' }).stdout.trim());
  fs.chownSync(dataDir, id('-u'), id('-g'));
  fs.chmodSync(dataDir, 0o500);
  const child = spawnSync(
    'runuser',
    ['-u', RUN_AS, '--', process.execPath, '--import', 'tsx', '--input-type=module', '-e', AS_OTHER_ACCOUNT, fileURLToPath(new URL('./session-token.ts', import.meta.url)), dataDir],
    { cwd: ROOT, env: { ...process.env, TSX_TSCONFIG_PATH: 'tsconfig.main.json' }, encoding: 'utf8', timeout: 25_000 },
  );
  if (child.error) throw new Error(`runuser -u ${RUN_AS}: ${child.error.message}`);
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout) as KeptToken;
}

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

  it.skipIf(process.platform === 'win32')('a data folder it cannot write to still gets a token for this launch, with the problem said', () => {
    const result = keptInReadOnlyFolder(dataDir);
    expect(result.kind).toBe('unkept');
    expect(result.token).toMatch(TOKEN_PATTERN);
    if (result.kind === 'unkept') expect(result.problem).toContain(`could not keep the access token in ${tokenFile(dataDir)}`);
    // Nothing was written there, not even a temporary file.
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });
});
