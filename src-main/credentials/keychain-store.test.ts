import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CredentialStoreError, type CredentialStore } from './credential-store';
import { createKeychainStore } from './keychain-store';

/**
 * Against the real OS keychain. On Linux that is a Secret Service on the D-Bus session bus; CI runs
 * the whole suite under `dbus-run-session` with gnome-keyring unlocked (see .ci/run), so these
 * only skip on a machine with no session bus at all.
 */
const hasSessionBus = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
const SERVICE = `steward-test-${randomBytes(6).toString('hex')}`;
const PLANTED = `sk-planted-${randomBytes(12).toString('hex')}`;

async function wipe(store: CredentialStore): Promise<void> {
  for (const name of await store.list()) await store.delete(name);
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STORE_MODULE = fileURLToPath(new URL('./keychain-store.ts', import.meta.url));

/**
 * Runs every store operation in a child process whose session bus does not exist. A child, because
 * the keychain library keeps its first connection for the life of the process.
 */
const CHILD = `
const { createKeychainStore } = await import(process.argv[1]);
const store = createKeychainStore({ service: process.argv[2] });
const ops = { set: () => store.set('api', process.argv[3]), list: () => store.list(), get: () => store.get('api'), delete: () => store.delete('api') };
const out = {};
for (const [op, run] of Object.entries(ops)) {
  try { out[op] = { ok: (await run()) ?? null }; } catch (e) { out[op] = { error: e.name, message: e.message }; }
}
process.stdout.write(JSON.stringify(out));
`;

function runWithoutBus(): Record<string, { ok?: unknown; error?: string; message?: string }> {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD, STORE_MODULE, SERVICE, PLANTED], {
    cwd: ROOT,
    env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/steward-test-bus', TSX_TSCONFIG_PATH: 'tsconfig.main.json' },
    encoding: 'utf8',
    timeout: 25_000,
  });
  expect(child.stdout, child.stderr).not.toBe('');
  expect(child.stdout + child.stderr).not.toContain(PLANTED);
  return JSON.parse(child.stdout) as Record<string, { ok?: unknown; error?: string; message?: string }>;
}

describe('keychain store without a reachable Secret Service', () => {
  it.runIf(process.platform === 'linux')('every operation fails at once with the actionable CredentialStoreError, never with the value', () => {
    const results = runWithoutBus();
    expect(Object.keys(results)).toEqual(['set', 'list', 'get', 'delete']);
    for (const [op, result] of Object.entries(results)) {
      expect(result.error, op).toBe('CredentialStoreError');
      expect(result.message, op).toMatch(
        /^The OS keychain is not reachable \(.+\): on Linux Steward needs a Secret Service such as gnome-keyring running in your session/,
      );
    }
    expect(results.set?.message).toContain('could not store credential api');
  });

  it('rejects an invalid name before touching the keychain, without echoing it', async () => {
    const store = createKeychainStore({ service: SERVICE });
    for (const bad of ['', 'has space', '../etc', 'ünïcode', 'a'.repeat(65), `key=${PLANTED}`]) {
      const error = await store.set(bad, 'value-1234').then(() => undefined, (err: unknown) => err);
      expect(error).toBeInstanceOf(CredentialStoreError);
      expect((error as Error).message).toMatch(/^not a valid credential name/);
      expect((error as Error).message).not.toContain(PLANTED);
      await expect(store.get(bad)).rejects.toThrow(/not a valid credential name/);
      await expect(store.delete(bad)).rejects.toThrow(/not a valid credential name/);
    }
  });

  it('refuses an empty value before touching the keychain', async () => {
    const store = createKeychainStore({ service: SERVICE });
    await expect(store.set('api', '')).rejects.toThrow('credential api: the value is empty');
  });
});

describe.skipIf(!hasSessionBus)('keychain store on the real Secret Service (skipped only when DBUS_SESSION_BUS_ADDRESS is unset; CI runs it under dbus-run-session)', () => {
  const store = createKeychainStore({ service: SERVICE });
  afterAll(async () => {
    await wipe(store);
  });

  it('stores, reads back, lists by name and deletes a credential', async () => {
    await store.set('openai', PLANTED);
    await store.set('github.token_2', 'ghp-second-value');
    expect(await store.get('openai')).toBe(PLANTED);
    expect(await store.list()).toEqual(['github.token_2', 'openai']);
    expect(await store.delete('openai')).toBe(true);
    expect(await store.get('openai')).toBeUndefined();
    expect(await store.list()).toEqual(['github.token_2']);
    expect(await store.delete('github.token_2')).toBe(true);
    expect(await store.list()).toEqual([]);
  });

  it('overwrites a value set twice, and keeps values with quotes, backslashes, newlines and non-ASCII intact', async () => {
    const tricky = 'a"b\\c\nd — é ✓ 🔑';
    await store.set('tricky', 'first-value');
    await store.set('tricky', tricky);
    expect(await store.get('tricky')).toBe(tricky);
    expect(await store.list()).toEqual(['tricky']);
    expect(await store.delete('tricky')).toBe(true);
  });

  it('says false when deleting or reading a credential that does not exist', async () => {
    expect(await store.get('never-set')).toBeUndefined();
    expect(await store.delete('never-set')).toBe(false);
  });

  it('keeps the list in the keychain: a new store instance (a restarted app) sees the same names', async () => {
    await store.set('persisted', 'value-persisted');
    const again = createKeychainStore({ service: SERVICE });
    expect(await again.list()).toEqual(['persisted']);
    expect(await again.get('persisted')).toBe('value-persisted');
    expect(await again.delete('persisted')).toBe(true);
    expect(await store.list()).toEqual([]);
  });

  it('keeps services apart: another service neither lists nor reads these credentials', async () => {
    const other = createKeychainStore({ service: `${SERVICE}-other` });
    await store.set('shared-name', 'value-of-first');
    try {
      expect(await other.list()).toEqual([]);
      expect(await other.get('shared-name')).toBeUndefined();
    } finally {
      await store.delete('shared-name');
      await wipe(other);
    }
  });

  it('never puts a value into what it returns from list', async () => {
    await store.set('listed', PLANTED);
    const listed = await store.list();
    expect(JSON.stringify(listed)).not.toContain(PLANTED);
    await store.delete('listed');
  });
});
