import { describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { WorkflowGraph } from '@shared/workflow/document';
import { recordingLedger } from '../../test-support/recording-ledger';
import { plantedKeychain } from '../../test-support/planted-keychain';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { runWorkflow } from './run-workflow';

/**
 * A secret in the real OS keychain (Secret Service on a D-Bus session; skipped without one) is
 * handed to a real MCP server whose tool, called by a workflow's tool node, prints its environment:
 * the value reaches the server and no event, output or invocation record.
 */
const { hasSessionBus, store, planted: PLANTED, server: plantedServer, plant } = plantedKeychain();

describe.skipIf(!hasSessionBus)('a planted keychain secret in a workflow (needs a D-Bus session with a Secret Service)', () => {
  it('reaches the tool node\'s server, never the journal, the outputs or the invocations — even when the tool prints it', async () => {
    await plant(PLANTED);
    const ws = tempNotesWorkspace();
    try {
      const graph = WorkflowGraph.parse({
        format: 'steward/v1',
        kind: 'workflow',
        id: 'leak-probe',
        name: 'Leak probe',
        servers: [plantedServer],
        nodes: [
          { id: 'env', kind: 'tool', server: 'ev', tool: 'get-env' },
          { id: 'out', kind: 'output', fields: [{ name: 'env', type: 'text' }, { name: 'result' }] },
        ],
        edges: [
          { from: { node: 'env', port: 'text' }, to: { node: 'out', port: 'env' } },
          { from: { node: 'env', port: 'result' }, to: { node: 'out', port: 'result' } },
        ],
      });
      const events: RunEvent[] = [];
      const { ledger, outcomes } = recordingLedger();
      const run = await runWorkflow({ graph, specDir: ws.dir, inputs: {}, ledger, onEvent: (e) => events.push(e), credentials: store, confirm: async () => 'granted' });
      expect(run.message).toBeUndefined();
      expect(run.status).toBe('completed');
      // The tool did print the environment, so masking (not absence) is what is tested.
      expect(JSON.stringify(run.outputs)).toContain('PLANTED_TOKEN');
      const everything = JSON.stringify({ events, run });
      expect(everything).not.toContain(PLANTED);
      // The result kept with the call's key (given again if a stop cut the node off) is the masked one too.
      expect(outcomes.map((o) => o.result?.content)).toEqual([expect.stringContaining('PLANTED_TOKEN')]);
      expect(JSON.stringify(outcomes)).not.toContain(PLANTED);
    } finally {
      ws.cleanup();
    }
  });
});
