import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';
import { AgentSpec, type McpServerSpec } from '@shared/contracts/spec';
import { ModelScript } from '@shared/contracts/script';
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

/**
 * The leak probe: an agent whose student calls the planted server's `get-env` (which prints the
 * secret) and completes, each step accepted by the teacher (phase 2: every decision reviewed).
 */
export function leakProbe(server: McpServerSpec): { spec: AgentSpec; script: ModelScript } {
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'leak-probe',
    name: 'Leak probe',
    instructions: 'Inspect the server.',
    task: 'Print the environment.',
    servers: [server],
    supervision: { phase: 2 },
  });
  const script = ModelScript.parse({
    latency_ms: 0,
    student: [{ json: { decision_type: 'tool_call', tool_name: 'get-env', arguments: {} } }, { json: { decision_type: 'complete', output: 'done' } }],
    teacher: [
      { json: { verdict: 'accept', reason_codes: [], explanation: 'Reading the environment is fine here.' } },
      { json: { verdict: 'accept', reason_codes: [], explanation: 'Done.' } },
    ],
  });
  return { spec, script };
}
