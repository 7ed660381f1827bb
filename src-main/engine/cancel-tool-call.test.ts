import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentSpec } from '@shared/contracts/spec';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runAgent } from './run-agent';
import { tempNotesWorkspace } from '../../test-support/workspace';

/** A real SDK-built stdio server whose `wait_for_cancel` notes when its call starts and when it is cancelled. */
const SCRIPT = fileURLToPath(new URL('../../test-support/capabilities-mcp-server.mjs', import.meta.url));
const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

describe('cancelling a run while a tool call is in flight (real MCP server)', () => {
  it('sends the server notifications/cancelled for the call, which it observes, and the run ends cancelled without waiting for the tool', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const marker = path.join(ws.dir, 'calls.log');
    const read = () => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '');
    const spec = AgentSpec.parse({
      format: 'steward/v1',
      kind: 'agent',
      id: 'cancel-agent',
      name: 'Cancel agent',
      instructions: 'Wait.',
      task: 'Wait for the slow tool.',
      workspace: 'notes-sandbox',
      servers: [{ id: 'caps', command: process.execPath, args: [SCRIPT, '--marker', marker] }],
      // Described as a read so it runs unreviewed: this test is about the call, not the review.
      tool_effects: { 'caps/wait_for_cancel': { effect: 'read' } },
    });
    const controller = new AbortController();
    let watching: NodeJS.Timeout | undefined;
    const started = Date.now();
    const result = await runAgent({
      spec,
      specDir: ws.dir,
      workspace: ws.workspace,
      script: { latency_ms: 0, student: [{ json: { decision_type: 'tool_call', tool_name: 'wait_for_cancel', arguments: { ms: 60_000 } } }], teacher: [] },
      ledger: createMemoryLedger(),
      signal: controller.signal,
      onEvent: (e) => {
        // Cancel once the server has the call in hand.
        if (e.type === 'decision.committed') {
          watching = setInterval(() => {
            if (!read().includes('started')) return;
            clearInterval(watching);
            controller.abort();
          }, 50);
        }
      },
    });
    clearInterval(watching);
    expect(result.status).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(45_000);
    // The call failed as aborted (outcome unknown: its key is spent), not as a tool that answered.
    expect(result.executions).toMatchObject([{ ok: false, tool: 'wait_for_cancel' }]);
    expect(result.executions[0]?.error).toMatch(/aborted while asked to run "wait_for_cancel"/);
    expect(result.rounds[0]).toMatchObject({ outcome: 'failed', reason: 'tool_error' });
    for (let i = 0; i < 100 && !read().includes('cancelled'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(read()).toMatch(/^started \d+\ncancelled \d+ /);
  });
});
