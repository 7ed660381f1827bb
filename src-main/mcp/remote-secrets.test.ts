import { afterEach, describe, expect, it } from 'vitest';
import { AgentSpec } from '@shared/contracts/spec';
import type { RunEvent } from '@shared/contracts/events';
import { ModelScript } from '@shared/contracts/script';
import { MASK } from '@shared/util/mask';
import { runAgent } from '../engine/run-agent';
import { resolveProvider } from '../providers/resolve-provider';
import { createMemoryLedger } from './idempotency-ledger';
import { plantedKeychain } from '../../test-support/planted-keychain';
import { startRemoteMcpServer, type RemoteMcpServer } from '../../test-support/remote-mcp-server';
import { tempNotesWorkspace } from '../../test-support/workspace';

/**
 * A remote server's header is a keychain reference: the real OS keychain (Secret Service under
 * D-Bus, as CI runs every test) gives the value to the host, which sends it to the server and
 * nowhere else — not the trace, not the privacy log, not the result.
 */
const { hasSessionBus, store, planted: PLANTED, plant } = plantedKeychain();

let server: RemoteMcpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function probe(url: string): { spec: AgentSpec; script: ModelScript } {
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'remote-probe',
    name: 'Remote probe',
    instructions: 'Use the remote server.',
    task: 'Echo something.',
    servers: [{ id: 'remote', url, headers: { Authorization: 'keychain:planted-token' }, tools: ['echo'] }],
    tool_effects: { 'remote/echo': { effect: 'read' } },
    supervision: { phase: 2 },
  });
  const script = ModelScript.parse({
    latency_ms: 0,
    student: [{ json: { decision_type: 'tool_call', tool_name: 'echo', arguments: { text: 'hello remote' } } }, { json: { decision_type: 'complete', output: 'done' } }],
    teacher: [
      { json: { verdict: 'accept', reason_codes: [], explanation: 'Echo is harmless.' } },
      { json: { verdict: 'accept', reason_codes: [], explanation: 'Done.' } },
    ],
  });
  return { spec, script };
}

describe.skipIf(!hasSessionBus)('a remote server header from the keychain (needs a D-Bus session with a Secret Service; skipped without one)', () => {
  it('reaches the server on every request, and never the trace or the privacy log, which records the call by name and size', async () => {
    await plant(`Bearer ${PLANTED}`);
    server = await startRemoteMcpServer('streamable');
    const ws = tempNotesWorkspace();
    try {
      const { spec, script } = probe(server.url());
      const events: RunEvent[] = [];
      const result = await runAgent({
        spec,
        specDir: ws.dir,
        ledger: createMemoryLedger(),
        onEvent: (e) => events.push(e),
        credentials: store,
        providers: { student: resolveProvider({ provider: 'script' }, 'student', { script }), teacher: resolveProvider({ provider: 'script' }, 'teacher', { script }) },
      });
      expect(result.status, `${result.message} ${result.setup_error}`).toBe('completed');
      expect(result.executions[0]?.content).toBe('echo: hello remote');
      // The server saw the header on every request…
      expect(server.requests.length).toBeGreaterThan(2);
      expect(server.requests.every((r) => r.headers.authorization === `Bearer ${PLANTED}`)).toBe(true);
      // …the run's privacy log has the call, by argument name and size…
      const sent = events.filter((e) => e.type === 'mcp.called');
      expect(sent).toEqual([expect.objectContaining({ server: 'remote', tool: 'echo', host: `127.0.0.1:${server.port}`, local: true, arguments: { text: MASK } })]);
      // …and the secret is nowhere in what the run wrote.
      expect(JSON.stringify(events)).not.toContain(PLANTED);
      expect(JSON.stringify(result)).not.toContain(PLANTED);
    } finally {
      ws.cleanup();
    }
  });

  it('a header credential missing from the keychain stops the run before any request, naming the reference', async () => {
    server = await startRemoteMcpServer('streamable');
    const ws = tempNotesWorkspace();
    try {
      const { spec, script } = probe(server.url());
      const missing = AgentSpec.parse({ ...spec, servers: [{ id: 'remote', url: server.url(), headers: { Authorization: 'keychain:not-there' } }] });
      const result = await runAgent({
        spec: missing,
        specDir: ws.dir,
        ledger: createMemoryLedger(),
        onEvent: () => undefined,
        credentials: store,
        providers: { student: resolveProvider({ provider: 'script' }, 'student', { script }), teacher: resolveProvider({ provider: 'script' }, 'teacher', { script }) },
      });
      expect(result.status).toBe('failed');
      expect(result.setup_error).toMatch(/keychain:not-there/);
      expect(server.requests).toEqual([]);
    } finally {
      ws.cleanup();
    }
  });
});
