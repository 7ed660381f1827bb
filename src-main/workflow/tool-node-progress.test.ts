import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { WorkflowGraph } from '@shared/workflow/document';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runWorkflow } from './run-workflow';

const require = createRequire(import.meta.url);
const everythingBin = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');

describe("a workflow tool node's progress (real server-everything)", () => {
  it('is recorded as tool.progress events of its invocation, before its result, thinned out, and not as notices', async () => {
    const graph = WorkflowGraph.parse({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'slow',
      name: 'Slow',
      servers: [{ id: 'ev', command: process.execPath, args: [everythingBin] }],
      // The reference server's shipped effects do not apply to a command-started server: described here.
      tool_effects: { 'ev/trigger-long-running-operation': { effect: 'read' } },
      nodes: [
        // 40 steps in 2 s: one report every 50 ms, thinned out to about one a second.
        { id: 'op', kind: 'tool', server: 'ev', tool: 'trigger-long-running-operation', arguments: { duration: 2, steps: 40 } },
        { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
      ],
      edges: [{ from: { node: 'op', port: 'text' }, to: { node: 'out', port: 'said' } }],
    });
    const events: RunEvent[] = [];
    const result = await runWorkflow({ graph, specDir: process.cwd(), inputs: {}, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), onProgress: () => undefined });
    expect(result.status).toBe('completed');
    const progress = events.filter((e) => e.type === 'tool.progress');
    expect(progress[0]).toMatchObject({ round: 0, server: 'ev', tool: 'trigger-long-running-operation', progress: 1, total: 40 });
    expect(progress[0]?.invocation_id).toMatch(/^op/);
    // The first, about one a second, and the last: far fewer than the 40 the server sent.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.length).toBeLessThanOrEqual(6);
    const executed = events.findIndex((e) => e.type === 'tool.executed');
    expect(events.indexOf(progress.at(-1) as RunEvent)).toBeLessThan(executed);
    expect(events.some((e) => e.type === 'run.notice' && e.message.includes('trigger-long-running-operation'))).toBe(false);
  });
});
