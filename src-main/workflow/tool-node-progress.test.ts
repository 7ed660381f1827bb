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
  it('is shown live as run notices while the slow tool runs, and on the CLI', async () => {
    const graph = WorkflowGraph.parse({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'slow',
      name: 'Slow',
      servers: [{ id: 'ev', command: process.execPath, args: [everythingBin] }],
      // The reference server's shipped effects do not apply to a command-started server: described here.
      tool_effects: { 'ev/trigger-long-running-operation': { effect: 'read' } },
      nodes: [
        { id: 'op', kind: 'tool', server: 'ev', tool: 'trigger-long-running-operation', arguments: { duration: 2, steps: 4 } },
        { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
      ],
      edges: [{ from: { node: 'op', port: 'text' }, to: { node: 'out', port: 'said' } }],
    });
    const events: RunEvent[] = [];
    const lines: string[] = [];
    const result = await runWorkflow({ graph, specDir: process.cwd(), inputs: {}, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), onProgress: (line) => lines.push(line) });
    expect(result.status).toBe('completed');
    const notices = events.flatMap((e) => (e.type === 'run.notice' ? [e.message] : []));
    expect(notices.some((m) => /^\[mcp ev\] trigger-long-running-operation: 1 of 4 \(25%\)$/.test(m))).toBe(true);
    expect(lines).toEqual(expect.arrayContaining(notices));
  });
});
