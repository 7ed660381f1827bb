import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, type RunEventOf } from '@shared/contracts/events';
import { ModelScript, type ModelScriptInput, type ScriptEntry } from '@shared/contracts/script';
import { AgentSpec, type AgentSpecInput } from '@shared/contracts/spec';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { resolveProvider } from '../providers/resolve-provider';
import { startFakeOpenAI } from '../../test-support/fake-openai';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { exportEvents } from '../otlp/export-otlp';
import { runAgent } from './run-agent';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

/** Planted in the task and in a workspace file the run reads: it reaches prompts, never the privacy log. */
const PLANTED = 'PLANTED-7f3a9c-do-not-log';

function setup(extra: Partial<AgentSpecInput> = {}) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  writeFileSync(join(ws.workspace, 'secret-notes.md'), `The vault code is ${PLANTED}.\n`);
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'privacy-log',
    name: 'Privacy log',
    instructions: 'Work in ${workspace}.',
    task: `Summarise secret-notes.md (reference ${PLANTED}).`,
    workspace: 'notes-sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file', 'write_file'] }],
    supervision: { phase: 2 },
    ...extra,
  });
  return { ws, spec };
}

const read = (ws: { workspace: string }): ScriptEntry => ({ json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: join(ws.workspace, 'secret-notes.md') } } });
const complete: ScriptEntry = { json: { decision_type: 'complete', output: 'summarised' } };
const accept: ScriptEntry = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };

function calls(events: RunEvent[]): Array<RunEventOf<'model.called'>> {
  return events.filter((e): e is RunEventOf<'model.called'> => e.type === 'model.called');
}

describe('the privacy log: every model call, who saw which data, never the data', () => {
  it('an SCS run logs the committee, the monitor, the student and the teacher, each call with its categories and size, and no planted value', async () => {
    const s = setup({ scs: { mode: 'on', monitor_every: 10 } });
    const script: ModelScriptInput = {
      latency_ms: 0,
      committee: [{ json: { phase_goal: 'Summarise', plan: ['Read the notes', 'Summarise', 'Finish'], acceptance_criteria: ['the notes were read'], allowed_tools: ['read_text_file'], stop_conditions: [] } }],
      monitor: [
        { json: { decision: 'approve_plan', confidence: 0.9, evidence: [], reason: 'Sound.' } },
        { json: { decision: 'finish_allowed', confidence: 0.9, evidence: ['read'], reason: 'Read.' } },
      ],
      student: [read(s.ws), complete],
      teacher: [accept, accept],
    };
    const events: RunEvent[] = [];
    const result = await runAgent({ spec: s.spec, specDir: s.ws.dir, workspace: s.ws.workspace, script, ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
    expect(result.status, result.message).toBe('completed');
    for (const e of events) expect(RunEvent.safeParse(e).success, e.type).toBe(true);

    const logged = calls(events);
    // One record per call that was made: proposals, verdicts, committee and monitor transcripts.
    const made = events.filter((e) => e.type === 'candidate.proposed' || e.type === 'verdict.received' || e.type === 'scs.transcript').length;
    expect(logged).toHaveLength(made);
    expect(logged.map((c) => [c.caller, c.purpose, c.round ?? null, c.phase ?? null])).toEqual([
      ['committee', 'plan', null, 1],
      ['monitor', 'gate', null, 1],
      ['student', 'propose', 0, null],
      ['teacher', 'review', 0, null],
      ['student', 'propose', 1, null],
      ['teacher', 'review', 1, null],
      ['monitor', 'gate', null, 1],
    ]);
    const student = logged.filter((c) => c.caller === 'student');
    expect(student[0]?.data).toEqual(['instructions', 'task', 'offered_tools']);
    // The second proposal's prompt carries the file the tool read: workspace content went to the model.
    expect(student[1]?.data).toEqual(['instructions', 'task', 'offered_tools', 'history', 'tool_results']);
    expect(logged.find((c) => c.caller === 'teacher')?.data).toEqual(['instructions', 'task', 'offered_tools', 'candidate', 'validation']);
    expect(logged[0]?.data).toEqual(['instructions', 'task', 'offered_tools']);
    expect(logged.at(-1)?.data).toEqual(['task', 'phase_plan', 'recent_events']);
    for (const c of logged) {
      expect(c).toMatchObject({ model: 'replay', provider: 'script', local: true, attempt: 1 });
      expect(c.host).toBeUndefined();
      expect(c.bytes).toBeGreaterThan(200);
    }
    // The planted value reached the models (task, tool result)…
    const transcripts = JSON.stringify(events.filter((e) => e.type === 'scs.transcript'));
    expect(transcripts).toContain(PLANTED);
    // …and the log says only that it did, by category: never the value.
    expect(JSON.stringify(logged)).not.toContain(PLANTED);
    // The monitor's evidence is the run's events, not the log's.
    expect(transcripts).not.toContain('model.called');
  }, 60_000);

  it('a call retried after a 503 is logged twice (attempt 1 and 2); a loopback server is local and names no host', async () => {
    let answered = 0;
    const fake = await startFakeOpenAI({
      chat: (_request, index) => {
        if (index === 0) return { status: 503, body: { error: { message: 'overloaded', type: 'server_error', param: null, code: null } } };
        answered += 1;
        return { message: { content: JSON.stringify(answered === 1 ? { decision_type: 'complete', output: 'done' } : { verdict: 'accept', reason_codes: [], explanation: 'ok' }) } };
      },
    });
    cleanups.push(() => fake.close());
    const s = setup({
      servers: [],
      supervision: { enabled: false },
      models: { student: { provider: 'openai_compatible', base_url: fake.baseUrl, model: 'small' }, teacher: { provider: 'script' } },
    });
    const events: RunEvent[] = [];
    const result = await runAgent({
      spec: s.spec,
      specDir: s.ws.dir,
      workspace: s.ws.workspace,
      script: { latency_ms: 0 },
      ledger: createMemoryLedger(),
      onEvent: (e) => events.push(e),
      retry: { sleep: async () => undefined, random: () => 0 },
    });
    expect(result.status, result.message).toBe('completed');
    expect(fake.chatRequests()).toHaveLength(2);
    const logged = calls(events);
    expect(logged.map((c) => [c.caller, c.round, c.attempt, c.model, c.provider, c.local, c.host])).toEqual([
      ['student', 0, 1, `${new URL(fake.url).host}:small`, 'openai_compatible', true, undefined],
      ['student', 0, 2, `${new URL(fake.url).host}:small`, 'openai_compatible', true, undefined],
    ]);
    expect(logged[0]?.bytes).toBe(logged[1]?.bytes);
  }, 60_000);

  it("a model on another host is logged by host name only: not the address's path or query", async () => {
    const { result, events } = await runWithRemoteTeacher('https://api.example.com/v1/deployments/notes-2026?api-version=2024-06-01');
    expect(result.status, result.message).toBe('completed');
    const teacher = calls(events).find((c) => c.caller === 'teacher');
    expect(teacher).toMatchObject({ purpose: 'review', model: 'api.example.com:big', local: false, host: 'api.example.com' });
    const text = JSON.stringify(calls(events));
    expect(text).not.toContain('deployments');
    expect(text).not.toContain('api-version');
  }, 60_000);
});

/** A phase-2 run whose teacher is a model on api.example.com (allowed); the replay double answers for it at the model boundary. */
async function runWithRemoteTeacher(baseUrl: string) {
  const s = setup({ servers: [], models: { student: { provider: 'script' }, teacher: { provider: 'openai_compatible', base_url: baseUrl, model: 'big' } } });
  const script = ModelScript.parse({ latency_ms: 0, student: [complete], teacher: [accept] });
  const events: RunEvent[] = [];
  const result = await runAgent({
    spec: s.spec,
    specDir: s.ws.dir,
    workspace: s.ws.workspace,
    ledger: createMemoryLedger(),
    onEvent: (e) => events.push(e),
    privacy: { allowed_hosts: ['api.example.com'] },
    providers: { student: resolveProvider({ provider: 'script' }, 'student', { script }), teacher: resolveProvider({ provider: 'script' }, 'teacher', { script }) },
  });
  return { result, events };
}

describe('the privacy log in the OTLP export', () => {
  it("each chat span carries its call's record: the categories sent, the bytes, local or not, the host as server.address; never a planted value", async () => {
    const { events } = await runWithRemoteTeacher('https://api.example.com/v1');
    const request = JSON.parse(new TextDecoder().decode(exportEvents(events).body)) as OtlpJson;
    const chats = request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((x) => x.spans)).filter((span) => span.name.startsWith('chat '));
    const attrs = (span: OtlpJson['resourceSpans'][number]['scopeSpans'][number]['spans'][number]) =>
      Object.fromEntries(span.attributes.map((a) => [a.key, a.value.stringValue ?? a.value.boolValue ?? a.value.intValue ?? a.value.arrayValue?.values.map((v) => v.stringValue)]));
    const logged = calls(events);
    expect(chats.map((span) => attrs(span))).toEqual([
      expect.objectContaining({ 'steward.role': 'student', 'steward.privacy.local': true, 'steward.privacy.data': ['instructions', 'task'], 'steward.request.bytes': logged[0]?.bytes }),
      expect.objectContaining({
        'steward.role': 'teacher',
        'server.address': 'api.example.com',
        'steward.privacy.local': false,
        'steward.privacy.data': ['instructions', 'task', 'candidate', 'validation'],
        'steward.request.bytes': logged[1]?.bytes,
      }),
    ]);
    expect(JSON.stringify(request)).not.toContain(PLANTED);
  }, 60_000);
});

interface OtlpJson {
  resourceSpans: Array<{
    scopeSpans: Array<{
      spans: Array<{ name: string; attributes: Array<{ key: string; value: { stringValue?: string; boolValue?: boolean; intValue?: number | string; arrayValue?: { values: Array<{ stringValue?: string }> } } }> }>;
    }>;
  }>;
}
