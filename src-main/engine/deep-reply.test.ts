import { describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { AgentSpec } from '@shared/contracts/spec';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import type { ModelProvider } from '../providers/provider';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { runAgent } from './run-agent';

const TOO_DEEP = /JSON nested deeper than \d+ levels/;
const deep = (): unknown => JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));

/** The double at the model boundary: a model whose native tool call is nested 100,000 levels deep. */
const deepModel: ModelProvider = {
  label: 'deep-double',
  complete: async () => ({ text: '', tool_calls: [{ name: 'write_file', arguments: { content: deep() } }], model: 'deep-double' }),
};

describe('a model reply nested 100,000 levels deep', () => {
  it('fails the round with a clear message; the trace and the result stay serialisable', async () => {
    const ws = tempNotesWorkspace();
    try {
      const spec = AgentSpec.parse({ format: 'steward/v1', kind: 'agent', id: 'deep', name: 'Deep', instructions: 'x', task: 'y', limits: { max_rounds: 1 } });
      const events: RunEvent[] = [];
      const result = await runAgent({ spec, specDir: ws.dir, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), providers: { student: deepModel, teacher: deepModel } });
      expect(result.rounds[0]?.outcome).toBe('failed');
      expect(result.rounds[0]?.message).toMatch(TOO_DEEP);
      expect(JSON.stringify(result)).toMatch(TOO_DEEP);
      expect(JSON.stringify(result)).not.toMatch(/call stack/);
      expect(events.map((e) => JSON.stringify(e)).join('\n')).toMatch(TOO_DEEP);
    } finally {
      ws.cleanup();
    }
  });
});
