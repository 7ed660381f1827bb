import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentSpec } from '@shared/contracts/spec';
import type { RunEvent } from '@shared/contracts/events';
import { STORED_TEXT_LIMIT_BYTES } from '@shared/util/trim-text';
import { recordingLedger } from '../../test-support/recording-ledger';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { runAgent } from './run-agent';

/**
 * What the ledger keeps with an executed key (issue 26's restart of a node): the result the model got, only where the
 * history records it whole. Real filesystem server; the model is the replay script (the double at the model boundary).
 */
const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

async function readTwo(options: { trace?: { include_tool_results: boolean }; dryRun?: boolean } = {}) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  writeFileSync(join(ws.workspace, 'small.md'), 'a short note');
  // One byte past what the history records whole (it would be trimmed there).
  writeFileSync(join(ws.workspace, 'large.md'), 'x'.repeat(STORED_TEXT_LIMIT_BYTES + 1));
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'reader',
    name: 'Reader',
    instructions: 'Read.',
    task: 'Read both notes.',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file'] }],
    supervision: { enabled: true, phase: 3 },
  });
  const read = (file: string) => ({ json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: join(ws.workspace, file) } } });
  const { ledger, outcomes } = recordingLedger();
  const events: RunEvent[] = [];
  const result = await runAgent({
    spec,
    specDir: ws.dir,
    workspace: ws.workspace,
    script: { latency_ms: 0, student: [read('small.md'), read('large.md'), { json: { decision_type: 'complete', output: 'read' } }], teacher: [] },
    ledger,
    onEvent: (e) => events.push(e),
    ...(options.trace ? { trace: { include_tool_results: options.trace.include_tool_results } } : {}),
    ...(options.dryRun ? { dryRun: true } : {}),
  });
  return { result, outcomes, events };
}

describe('the result kept with an executed key', () => {
  it('is the text the model got, for a result the history records whole; a larger one is not kept', async () => {
    const { result, outcomes, events } = await readTwo();
    expect(result.status).toBe('completed');
    expect(outcomes).toHaveLength(2);
    const [small, large] = outcomes;
    const recorded = events.find((e) => e.type === 'tool.executed');
    expect(small?.result).toEqual({ ok: true, is_error: false, content: recorded?.type === 'tool.executed' ? recorded.execution.content : '' });
    expect(small?.result?.content).toContain('a short note');
    expect(large?.result).toBeUndefined();
  });

  it('is never kept for a run whose trace profile keeps no tool results, nor for a dry run (nothing executes)', async () => {
    const dropped = await readTwo({ trace: { include_tool_results: false } });
    expect(dropped.result.status).toBe('completed');
    expect(dropped.outcomes).toHaveLength(2);
    expect(dropped.outcomes.filter((o) => o.result !== undefined)).toEqual([]);
    const dry = await readTwo({ dryRun: true });
    expect(dry.result.status).toBe('completed');
    expect(dry.outcomes).toEqual([]);
  });
});
