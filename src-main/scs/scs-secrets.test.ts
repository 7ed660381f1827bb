import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { ModelScript, type ModelScriptInput, type ScriptEntry } from '@shared/contracts/script';
import { AgentSpec, type McpServerSpec } from '@shared/contracts/spec';
import type { CredentialStore } from '../credentials/credential-store';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runAgent } from '../engine/run-agent';
import type { ModelProvider, ModelRequest } from '../providers/provider';
import { createScriptProvider, type ScriptQueue } from '../providers/script-provider';
import { plantedKeychain } from '../../test-support/planted-keychain';
import { tempNotesWorkspace } from '../../test-support/workspace';

/**
 * Evidence packs and SCS prompts carry no secret: a sensitive tool argument (write_file's content,
 * marked sensitive) and a keychain credential a tool prints back are planted in a run that SCS
 * gates; neither may reach a prompt the committee or monitor is sent, nor an SCS event (the
 * monitor's transcripts, the stopped phase's evidence and changed files).
 */

/**
 * TEST DOUBLE at the model boundary: the replay script answers each call from the queue of its
 * caller (student, teacher, committee, monitor) and every prompt sent is recorded.
 */
function recordingReplay(script: ModelScript, sent: ModelRequest[]): ModelProvider {
  const queues = new Map<ScriptQueue, ModelProvider>();
  const queue = (name: ScriptQueue): ModelProvider => {
    let p = queues.get(name);
    if (!p) queues.set(name, (p = createScriptProvider(script, name)));
    return p;
  };
  return {
    label: 'replay',
    complete: (request) => {
      sent.push(request);
      const caller = request.call?.caller;
      return queue(caller === undefined || caller === 'supervisor' || caller === 'judge' ? request.role : caller).complete(request);
    },
  };
}

const SENSITIVE = `planted-argument-${Math.random().toString(36).slice(2)}-value`;
const fs = (): McpServerSpec => ({ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file', 'write_file'] });

const monitor = (decision: string, reason: string): ScriptEntry => ({ json: { decision, confidence: 0.8, evidence: decision === 'finish_allowed' ? ['round 3'] : [], reason } });

async function plantedRun(opts: { servers: McpServerSpec[]; extraTool?: string; credentials?: CredentialStore }) {
  const ws = tempNotesWorkspace();
  try {
    const spec = AgentSpec.parse({
      format: 'steward/v1',
      kind: 'agent',
      id: 'scs-secrets',
      name: 'SCS secrets',
      instructions: 'Work in ${workspace}.',
      task: 'Write the summary, then check the notes.',
      workspace: 'notes-sandbox',
      servers: opts.servers,
      tool_effects: { 'fs/write_file': { effect: 'reversible_write', sensitive_arguments: ['content'] } },
      supervision: { phase: 4 },
      scs: { mode: 'on', monitor_every: 10 },
    });
    const path = (file: string) => join(ws.workspace, file);
    const tools = ['write_file', 'read_text_file', ...(opts.extraTool ? [opts.extraTool] : [])];
    const script: ModelScriptInput = {
      latency_ms: 0,
      committee: [
        { json: { phase_goal: 'Write and check', plan: ['Write', 'Read', 'Check'], acceptance_criteria: ['summary.md exists'], allowed_tools: tools, stop_conditions: ['the notes are missing ("ENOENT")'] } },
        { json: { phase_goal: 'Read it back', plan: ['Read', 'Check', 'Finish'], acceptance_criteria: ['summary.md read back'], allowed_tools: tools, stop_conditions: [] } },
      ],
      monitor: [monitor('approve_plan', 'OK.'), monitor('rethink_plan', 'notes.md is missing.'), monitor('approve_plan', 'OK.'), monitor('finish_allowed', 'Read back.')],
      student: [
        { json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: path('summary.md'), content: `token: ${SENSITIVE}` } } },
        ...(opts.extraTool ? [{ json: { decision_type: 'tool_call', tool_name: opts.extraTool, arguments: {} } }] : []),
        { json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: path('notes.md') } } },
        { json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: path('summary.md') } } },
        { json: { decision_type: 'complete', output: 'done' } },
      ],
      // The write, and the extra tool when its effect is protected (server-everything's get-env is not classified).
      teacher: [{ json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } }, { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } }],
    };
    const sent: ModelRequest[] = [];
    const events: RunEvent[] = [];
    const replay = recordingReplay(ModelScript.parse(script), sent);
    const providers = { student: replay, teacher: replay };
    const result = await runAgent({ spec, specDir: ws.dir, workspace: ws.workspace, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), credentials: opts.credentials, providers });
    return { result, events, sent, written: readFileSync(path('summary.md'), 'utf8') };
  } finally {
    ws.cleanup();
  }
}

function scsPrompts(sent: readonly ModelRequest[]): string {
  return JSON.stringify(sent.filter((r) => r.call?.caller === 'committee' || r.call?.caller === 'monitor').map((r) => r.messages));
}
const scsEvents = (events: readonly RunEvent[]): string => JSON.stringify(events.filter((e) => e.type.startsWith('scs.')));

describe('SCS evidence packs and prompts carry no secret', () => {
  it('the evidence pack never holds a planted sensitive argument: not in a committee or monitor prompt, not in a stopped phase\'s changed files', async () => {
    const { result, events, sent, written } = await plantedRun({ servers: [fs()] });
    expect(result.status, result.message).toBe('completed');
    // Planted: the value reached the tool (the file holds it)…
    expect(written).toContain(SENSITIVE);
    // …the phase stopped with the write among its changed files, and the monitor reviewed it…
    const stopped = events.find((e) => e.type === 'scs.supervisor.phase_stopped');
    expect(stopped?.type === 'scs.supervisor.phase_stopped' && stopped.changed_files.map((c) => c.tool)).toEqual(['write_file']);
    expect(sent.filter((r) => r.call?.caller === 'monitor').length).toBe(4);
    // …and no SCS prompt or event has it.
    expect(scsPrompts(sent)).toContain('Changed files in this phase');
    expect(scsPrompts(sent)).not.toContain(SENSITIVE);
    expect(scsEvents(events)).not.toContain(SENSITIVE);
  });

  const { hasSessionBus, store, planted, server, plant } = plantedKeychain();
  it.skipIf(!hasSessionBus)('a keychain credential a tool prints reaches no SCS prompt and no SCS event (needs a D-Bus Secret Service)', async () => {
    await plant(planted);
    const { result, events, sent } = await plantedRun({ servers: [fs(), server], extraTool: 'get-env', credentials: store });
    expect(result.status, result.message).toBe('completed');
    // The server got it: its environment dump shows it, masked.
    expect(result.executions.find((e) => e.tool === 'get-env')?.content).toContain('••••(keychain:planted-token)');
    expect(scsPrompts(sent)).toContain('get-env');
    expect(scsPrompts(sent)).not.toContain(planted);
    expect(scsEvents(events)).not.toContain(planted);
    expect(scsPrompts(sent)).not.toContain(SENSITIVE);
  });
});
