import { describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { WorkflowGraph } from '@shared/workflow/document';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runWorkflow } from './run-workflow';
import { slowToolWorkflow } from '../../test-support/slow-tool-workflow';

describe("a workflow tool node's progress (real server-everything)", () => {
  it('is recorded as tool.progress events of its invocation, before its result, thinned out, and not as notices', async () => {
    // 40 steps in 2 s: one report every 50 ms, thinned out to about one a second.
    const graph = WorkflowGraph.parse(slowToolWorkflow(2, 40));
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
