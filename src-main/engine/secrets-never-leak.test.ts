import { describe, expect, it } from 'vitest';
import { AgentSpec } from '@shared/contracts/spec';
import type { RunEvent } from '@shared/contracts/events';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import type { ModelProvider, ModelRequest } from '../providers/provider';
import { resolveProvider } from '../providers/resolve-provider';
import { runAgent } from './run-agent';
import { learningExampleFromEvent, toJsonl, toPreferenceLines, toSftLines } from '@shared/learning/export-formats';
import { PromptBook } from '@shared/learning/learning-context';
import { leakProbe, plantedKeychain } from '../../test-support/planted-keychain';
import { tempNotesWorkspace } from '../../test-support/workspace';

/**
 * A secret planted in the real OS keychain (Secret Service under D-Bus; CI runs every test inside
 * dbus-run-session) is handed to a real MCP server whose tool then prints its whole environment.
 * The value must reach the server and nothing else: not the trace, not the result, not a prompt.
 */
const { hasSessionBus, store, planted: PLANTED, server: plantedServer, plant } = plantedKeychain();

/** Records every prompt a model is sent: the double at the model boundary wraps the replay provider. */
function recording(provider: ModelProvider, sent: ModelRequest[]): ModelProvider {
  return { label: provider.label, complete: (request) => (sent.push(request), provider.complete(request)) };
}

describe.skipIf(!hasSessionBus)('a planted keychain secret (needs a D-Bus session with a Secret Service; skipped without one)', () => {
  it('reaches the MCP server, and never the trace, the result, or any prompt — even when a tool prints it', async () => {
    await plant(PLANTED);
    const ws = tempNotesWorkspace();
    try {
      const { spec, script } = leakProbe(plantedServer);
      const sent: ModelRequest[] = [];
      const events: RunEvent[] = [];
      const result = await runAgent({
        spec,
        specDir: ws.dir,
        ledger: createMemoryLedger(),
        onEvent: (e) => events.push(e),
        credentials: store,
        providers: {
          student: recording(resolveProvider({ provider: 'script' }, 'student', { script }), sent),
          teacher: recording(resolveProvider({ provider: 'script' }, 'teacher', { script }), sent),
        },
      });

      expect(result.status, `${result.message} ${result.setup_error}`).toBe('completed');
      // The server got the value: its environment dump shows it, masked.
      expect(result.executions[0]?.content).toContain('••••(keychain:planted-token)');
      // …and nowhere else has it.
      expect(sent.length).toBeGreaterThanOrEqual(3);
      expect(JSON.stringify(sent.map((r) => r.messages))).not.toContain(PLANTED);
      expect(JSON.stringify(events)).not.toContain(PLANTED);
      expect(JSON.stringify(result)).not.toContain(PLANTED);
      // …nor the fine-tuning exports made from the trace.
      // Each prompt rebuilt whole from the referenced form the trace stores, as the export does.
      const prompts = new PromptBook();
      const examples = events.flatMap((e) => {
        if (e.type !== 'learning.example') return [];
        const prompt = prompts.resolve(e);
        return prompt.ok ? [learningExampleFromEvent(e, undefined, prompt.context)] : [];
      });
      expect(examples.length).toBeGreaterThan(0);
      expect(examples.every((e) => e.context.length > 0)).toBe(true);
      const exported = toJsonl([...toSftLines(examples).lines, ...toPreferenceLines(examples).lines]);
      expect(exported).not.toContain(PLANTED);
    } finally {
      ws.cleanup();
    }
  });

  it('a credential missing from the keychain stops the run before it starts, naming the reference', async () => {
    const ws = tempNotesWorkspace();
    try {
      const spec = AgentSpec.parse({
        format: 'steward/v1',
        kind: 'agent',
        id: 'missing-cred',
        name: 'Missing credential',
        instructions: 'x',
        task: 'x',
        servers: [{ id: 'ev', package: '@modelcontextprotocol/server-everything', env: { TOKEN: 'keychain:not-there' } }],
      });
      const events: RunEvent[] = [];
      const result = await runAgent({ spec, specDir: ws.dir, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), credentials: store, script: { latency_ms: 0, student: [], teacher: [] } });
      expect(result.status).toBe('failed');
      expect(result.setup_error).toMatch(/keychain:not-there is not in the keychain/);
      expect(events.map((e) => e.type)).toEqual(['run.started', 'run.finished']);
    } finally {
      ws.cleanup();
    }
  });
});
