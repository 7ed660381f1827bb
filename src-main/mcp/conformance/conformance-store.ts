import { randomBytes } from 'node:crypto';
import type { CredentialStore } from '../../credentials/credential-store';
import { createKeychainStore } from '../../credentials/keychain-store';

/**
 * Where a conformance scenario's credentials go: the OS keychain under a service of its own
 * (STEWARD_CONFORMANCE_KEYCHAIN_SERVICE); without a session bus, an in-memory store stands in and
 * says so on stderr.
 */
export function conformanceStore(): CredentialStore {
  if (process.env.DBUS_SESSION_BUS_ADDRESS || process.platform !== 'linux') {
    return createKeychainStore({ service: process.env.STEWARD_CONFORMANCE_KEYCHAIN_SERVICE ?? `steward-conformance-${randomBytes(6).toString('hex')}` });
  }
  process.stderr.write('[steward] no D-Bus session: credentials are held in memory for this scenario, not in the OS keychain\n');
  const values = new Map<string, string>();
  return {
    list: () => Promise.resolve([...values.keys()]),
    set: (name, value) => Promise.resolve(void values.set(name, value)),
    get: (name) => Promise.resolve(values.get(name)),
    delete: (name) => Promise.resolve(values.delete(name)),
  };
}

/** Empties what a scenario stored: its sign-ins and the credentials registered for it. */
export async function wipeConformanceStore(store: CredentialStore): Promise<void> {
  for (const name of await store.list().catch(() => [])) if (name.startsWith('mcp-oauth.') || name.startsWith('conformance-')) await store.delete(name).catch(() => false);
}
