import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createKeychainStore } from '../../credentials/keychain-store';
import { CREDENTIALS_EXIT, credentialsCommand, type CredentialsIo } from './credentials-command';

const hasSessionBus = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
const SERVICE = `steward-test-${randomBytes(6).toString('hex')}`;
const PLANTED = `sk-planted-${randomBytes(12).toString('hex')}`;
const store = createKeychainStore({ service: SERVICE });

interface Captured {
  io: CredentialsIo;
  out: () => string;
  err: () => string;
  stdinReads: () => number;
}

function capture(stdin = ''): Captured {
  let out = '';
  let err = '';
  let reads = 0;
  return {
    io: {
      stdout: (t) => (out += t),
      stderr: (t) => (err += t),
      env: process.env,
      stdin: () => {
        reads += 1;
        return Promise.resolve(stdin);
      },
    },
    out: () => out,
    err: () => err,
    stdinReads: () => reads,
  };
}

describe('steward credentials: refusals that never reach the keychain', () => {
  it('refuses a value given as an argument, tells to use standard input, and never echoes it', async () => {
    const c = capture(PLANTED);
    const code = await credentialsCommand(['set', 'openai', PLANTED], c.io, store);
    expect(code).toBe(CREDENTIALS_EXIT.badInput);
    expect(c.err()).toContain('the value is read from standard input, never from an argument');
    expect(c.out() + c.err()).not.toContain(PLANTED);
    expect(c.stdinReads()).toBe(0);
  });

  it('refuses an empty standard input (a lone newline counts as empty)', async () => {
    for (const input of ['', '\n', '\r\n']) {
      const c = capture(input);
      expect(await credentialsCommand(['set', 'openai'], c.io, store)).toBe(CREDENTIALS_EXIT.badInput);
      expect(c.err()).toContain('no value on standard input for openai');
    }
  });

  it('refuses a value too short to be masked in traces', async () => {
    const c = capture('abc\n');
    expect(await credentialsCommand(['set', 'pin'], c.io, store)).toBe(CREDENTIALS_EXIT.badInput);
    expect(c.err()).toContain('shorter than 4 characters');
    expect(c.err()).not.toContain('abc');
  });

  it('refuses an invalid name, and a "name" that is really a key without echoing it', async () => {
    const bad = capture('value-1234');
    expect(await credentialsCommand(['set', 'has space'], bad.io, store)).toBe(CREDENTIALS_EXIT.badInput);
    expect(bad.err()).toContain('not a valid credential name');
    expect(bad.stdinReads()).toBe(0);

    const key = capture('value-1234');
    expect(await credentialsCommand(['set', PLANTED], key.io, store)).toBe(CREDENTIALS_EXIT.badInput);
    expect(key.err()).toContain('looks like a secret itself');
    expect(key.err()).not.toContain(PLANTED);

    const del = capture();
    expect(await credentialsCommand(['delete'], del.io, store)).toBe(CREDENTIALS_EXIT.badInput);
    expect(del.err()).toContain('delete needs exactly one NAME');
  });

  it('prints the usage for no or an unknown subcommand (exit 2) and for help (exit 0)', async () => {
    const none = capture();
    expect(await credentialsCommand([], none.io, store)).toBe(CREDENTIALS_EXIT.badInput);
    expect(none.err()).toContain('steward credentials set NAME');
    const unknown = capture();
    expect(await credentialsCommand(['show', 'x'], unknown.io, store)).toBe(CREDENTIALS_EXIT.badInput);
    expect(unknown.err()).toContain('unknown subcommand "show"');
    const help = capture();
    expect(await credentialsCommand(['--help'], help.io, store)).toBe(CREDENTIALS_EXIT.ok);
    expect(help.out()).toContain('never from an argument');
  });
});

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CHILD = `
const { credentialsCommand } = await import(process.argv[1]);
const { createKeychainStore } = await import(process.argv[2]);
let out = '', err = '';
const io = { stdout: (t) => (out += t), stderr: (t) => (err += t), env: process.env, stdin: async () => process.argv[4] };
const code = await credentialsCommand(['set', 'openai'], io, createKeychainStore({ service: process.argv[3] }));
process.stdout.write(JSON.stringify({ code, out, err }));
`;

describe('steward credentials without a reachable keychain', () => {
  it.runIf(process.platform === 'linux')('exits 2 with the actionable keychain message and no value', () => {
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        CHILD,
        fileURLToPath(new URL('./credentials-command.ts', import.meta.url)),
        fileURLToPath(new URL('../../credentials/keychain-store.ts', import.meta.url)),
        SERVICE,
        PLANTED,
      ],
      {
        cwd: ROOT,
        env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/steward-test-bus', TSX_TSCONFIG_PATH: 'tsconfig.main.json' },
        encoding: 'utf8',
        timeout: 25_000,
      },
    );
    expect(child.stdout, child.stderr).not.toBe('');
    const result = JSON.parse(child.stdout) as { code: number; out: string; err: string };
    expect(result.code).toBe(CREDENTIALS_EXIT.badInput);
    expect(result.err).toMatch(/^steward credentials: The OS keychain is not reachable .*gnome-keyring/);
    expect(child.stdout + child.stderr).not.toContain(PLANTED);
  });
});

describe.skipIf(!hasSessionBus)('steward credentials on the real Secret Service (skipped only when DBUS_SESSION_BUS_ADDRESS is unset; CI runs it under dbus-run-session)', () => {
  afterAll(async () => {
    for (const name of await store.list()) await store.delete(name);
  });

  it('set reads the value from standard input (one trailing newline stripped) and never prints it', async () => {
    const c = capture(`${PLANTED}\n`);
    expect(await credentialsCommand(['set', 'openai'], c.io, store)).toBe(CREDENTIALS_EXIT.ok);
    expect(c.out()).toBe('stored openai in the OS keychain — refer to it as keychain:openai\n');
    expect(c.out() + c.err()).not.toContain(PLANTED);
    expect(c.stdinReads()).toBe(1);
    expect(await store.get('openai')).toBe(PLANTED);
    await store.delete('openai');
  });

  it('keeps everything but the one final newline as part of the value', async () => {
    const c = capture('  spaced value\n\n');
    expect(await credentialsCommand(['set', 'spaced'], c.io, store)).toBe(CREDENTIALS_EXIT.ok);
    expect(await store.get('spaced')).toBe('  spaced value\n');
    await store.delete('spaced');
  });

  it('list prints names one per line, or "no credentials"', async () => {
    // Its own service, so other tests' credentials cannot show up in the list.
    const own = createKeychainStore({ service: `${SERVICE}-list` });
    const empty = capture();
    expect(await credentialsCommand(['list'], empty.io, own)).toBe(CREDENTIALS_EXIT.ok);
    expect(empty.out()).toBe('no credentials\n');

    await own.set('zeta', PLANTED);
    await own.set('alpha', 'value-alpha');
    try {
      const listed = capture();
      expect(await credentialsCommand(['list'], listed.io, own)).toBe(CREDENTIALS_EXIT.ok);
      expect(listed.out()).toBe('alpha\nzeta\n');
      expect(listed.out()).not.toContain(PLANTED);
    } finally {
      await own.delete('zeta');
      await own.delete('alpha');
    }
  });

  it('delete removes a credential (exit 0) and says so when there was none (exit 1)', async () => {
    await store.set('gone', 'value-gone');
    const first = capture();
    expect(await credentialsCommand(['delete', 'gone'], first.io, store)).toBe(CREDENTIALS_EXIT.ok);
    expect(first.out()).toBe('deleted gone\n');
    expect(await store.get('gone')).toBeUndefined();
    const again = capture();
    expect(await credentialsCommand(['delete', 'gone'], again.io, store)).toBe(CREDENTIALS_EXIT.notFound);
    expect(again.err()).toBe('steward credentials: no credential gone in the OS keychain\n');
  });
});
