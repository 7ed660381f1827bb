import { join } from 'node:path';
import { expect } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import type { ModelScriptInput, ScriptEntry } from '@shared/contracts/script';
import { AgentSpec, type AgentSpecInput } from '@shared/contracts/spec';
import { createMemoryLedger } from '../src-main/mcp/idempotency-ledger';
import { runAgent } from '../src-main/engine/run-agent';
import { tempNotesWorkspace } from './workspace';

/**
 * An SCS agent run over the notes workspace: the real filesystem MCP server, and the replay
 * (scripted) models — the test double at the model boundary. Shared by the SCS run tests.
 */
export function scsNotesSetup(
  cleanups: Array<() => void>,
  base: Pick<AgentSpecInput, 'id' | 'name' | 'task' | 'supervision'>,
  scs: AgentSpecInput['scs'],
  extra: Partial<AgentSpecInput> = {},
) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    ...base,
    instructions: 'Work in ${workspace}.',
    workspace: 'notes-sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file', 'write_file', 'list_directory'] }],
    scs,
    ...extra,
  });
  return { ws, spec };
}

/** Runs it on `script`; every event must be a valid RunEvent. `types`: the SCS events, transcript aside. */
export async function runScsNotes(s: ReturnType<typeof scsNotesSetup>, script: ModelScriptInput) {
  const events: RunEvent[] = [];
  const result = await runAgent({ spec: s.spec, specDir: s.ws.dir, workspace: s.ws.workspace, script: { latency_ms: 0, ...script }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
  for (const e of events) expect(RunEvent.safeParse(e).success, e.type).toBe(true);
  return { result, events, types: events.map((e) => e.type).filter((t) => t.startsWith('scs.') && t !== 'scs.transcript') };
}

export const monitor = (decision: string, reason: string, extra: Record<string, unknown> = {}): ScriptEntry => ({
  json: { decision, confidence: 0.8, evidence: decision === 'finish_allowed' ? ['summary.md was written'] : [], reason, ...extra },
});
export const read = (ws: { workspace: string }, file = 'meeting-notes.md'): ScriptEntry => ({ json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: join(ws.workspace, file) } } });
export const write = (ws: { workspace: string }, content = '# Summary\n- Bo: guide'): ScriptEntry => ({
  json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(ws.workspace, 'summary.md'), content } },
});
export const complete: ScriptEntry = { json: { decision_type: 'complete', output: 'summary written' } };
export const acceptVerdict: ScriptEntry = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };
