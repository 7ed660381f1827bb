import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';
import type { McpServerSpec } from '@shared/contracts/spec';
import { createKeychainStore } from '../src-main/credentials/keychain-store';

/**
 * A secret planted in the real OS keychain (Secret Service on a D-Bus session; CI runs every test
 * inside dbus-run-session), under a service name of its own, removed after the file's tests. The
 * server-everything entry hands it to a real MCP server whose `get-env` tool prints it back.
 */
export function plantedKeychain() {
  const hasSessionBus = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
  const store = createKeychainStore({ service: `steward-test-${randomBytes(6).toString('hex')}` });
  afterAll(async () => {
    if (hasSessionBus) for (const name of await store.list()) await store.delete(name);
  });
  const server: McpServerSpec = { id: 'ev', package: '@modelcontextprotocol/server-everything', args: [], env: { PLANTED_TOKEN: 'keychain:planted-token' }, tools: ['get-env'] };
  return { hasSessionBus, store, planted: `planted-${randomBytes(16).toString('hex')}`, server, plant: (value: string) => store.set('planted-token', value) };
}
