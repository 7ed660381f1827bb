import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { AgentSpec } from '@shared/contracts/spec';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { runAgent } from './run-agent';

/** A real stdio MCP server that lists its tools slowly (test-support/misbehaving-mcp-server.mjs). */
const SCRIPT = fileURLToPath(new URL('../../test-support/misbehaving-mcp-server.mjs', import.meta.url));
const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

describe('a slow MCP server is never a silent wait', () => {
  it('a tool listing that takes a while is reported in the trace (run.notice) and on the progress line, then the run goes on', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const spec = AgentSpec.parse({
      format: 'steward/v1',
      kind: 'agent',
      id: 'slow-server',
      name: 'Slow server',
      instructions: 'Answer.',
      task: 'Say done.',
      servers: [{ id: 'slow', command: process.execPath, args: [SCRIPT, '--list-delay', '700'] }],
      supervision: { enabled: false },
    });
    const events: RunEvent[] = [];
    const lines: string[] = [];
    const result = await runAgent({
      spec,
      specDir: ws.dir,
      script: { latency_ms: 0, student: [{ json: { decision_type: 'complete', output: 'done' } }], teacher: [] },
      ledger: createMemoryLedger(),
      onEvent: (e) => events.push(e),
      onProgress: (line) => lines.push(line),
      progressIntervalMs: 200,
    });
    expect(result.message ?? '').toBe('');
    expect(result.status).toBe('completed');
    const notices = events.filter((e) => e.type === 'run.notice');
    expect(notices.length).toBeGreaterThanOrEqual(2);
    expect(notices[0]?.type === 'run.notice' && notices[0].message).toMatch(/still waiting for "slow" to list its tools \(0\.2 s\)/);
    expect(lines).toEqual(notices.map((n) => (n.type === 'run.notice' ? n.message : '')));
    // The notices come before the round that needed the tools, and the trace stays in order.
    const firstRound = events.findIndex((e) => e.type === 'candidate.proposed');
    expect(events.indexOf(notices[0] as RunEvent)).toBeLessThan(firstRound);
  });
});
