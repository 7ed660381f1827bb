import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import type { ChatMessage } from '@shared/contracts/model';
import type { HumanAnswer } from '@shared/contracts/intervention';
import type { ModelScript, ScriptEntry } from '@shared/contracts/script';
import { AgentSpec, type AgentSpecInput } from '@shared/contracts/spec';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import type { ModelProvider } from '../providers/provider';
import { createScriptProvider } from '../providers/script-provider';
import { RunCheckpoint } from './checkpoint';
import { runAgent } from './run-agent';
import { tempNotesWorkspace } from '../../test-support/workspace';

/**
 * Issue 10: a final answer is not trusted blindly. The student proposes a write, a person rejects
 * it, and the student then says "Posted the items to shared.md". The models are the scripted
 * provider (the test double at the model boundary); the filesystem MCP server is the real one.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function setup(supervision: AgentSpecInput['supervision'], tool_effects: AgentSpecInput['tool_effects']) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'final-answer-review',
    name: 'Final answer review',
    instructions: 'Work in ${workspace}.',
    task: 'Post the action items to shared.md.',
    workspace: 'notes-sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file', 'write_file'] }],
    supervision,
    tool_effects,
  });
  return { ws, spec };
}

const CONFIRM_WRITES = { 'fs/write_file': { effect: 'reversible_write' as const, requires_user_confirmation: true } };
const writeShared = (workspace: string): ScriptEntry => ({
  json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(workspace, 'shared.md'), content: '- send the minutes' } },
});
const complete = (output: string): ScriptEntry => ({ json: { decision_type: 'complete', output } });
const accept: ScriptEntry = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };
const blockClaim: ScriptEntry = { json: { verdict: 'block', reason_codes: ['hallucination'], explanation: 'Nothing was posted: the write was rejected.' } };
const FALSE_CLAIM = 'Posted the items to shared.md.';
const HONEST = 'I did not post the items: you rejected the write to shared.md.';

/** The scripted teacher, recording the prompt of each review it is asked for. */
function recordingTeacher(script: ModelScript, startAt: number, prompts: ChatMessage[][]): ModelProvider {
  const inner = createScriptProvider(script, 'teacher', { startAt });
  return { ...inner, complete: (request) => (prompts.push(request.messages), inner.complete(request)) };
}

/** Runs until the person is asked, then resumes with their answer, as the app does after a restart. */
async function rejectedThenResumed(s: ReturnType<typeof setup>, script: Pick<ModelScript, 'student' | 'teacher'>, answer: HumanAnswer) {
  const full: ModelScript = { latency_ms: 0, committee: [], monitor: [], ...script };
  const ledger = createMemoryLedger();
  const first = await runAgent({ spec: s.spec, specDir: s.ws.dir, workspace: s.ws.workspace, script: full, ledger, onEvent: () => undefined, confirm: async () => 'pending' });
  expect(first.status).toBe('waiting');
  const checkpoint = RunCheckpoint.parse(JSON.parse(JSON.stringify(first.checkpoint)));
  const prompts: ChatMessage[][] = [];
  const events: RunEvent[] = [];
  const result = await runAgent({
    spec: checkpoint.spec,
    specDir: checkpoint.spec_dir,
    workspace: checkpoint.workspace,
    script: checkpoint.script,
    ledger,
    onEvent: (e) => events.push(e),
    resume: { checkpoint, answer },
    providers: {
      student: createScriptProvider(full, 'student', { startAt: checkpoint.script_positions.student }),
      teacher: recordingTeacher(full, checkpoint.script_positions.teacher, prompts),
    },
  });
  return { result, events, prompts };
}

describe('a final answer after a person rejected a write', () => {
  it('is reviewed by the teacher with what was rejected and what ran, and a false "Posted" is blocked, never a green Completed', async () => {
    const s = setup({ phase: 3 }, CONFIRM_WRITES);
    const { result, events, prompts } = await rejectedThenResumed(s, { student: [writeShared(s.ws.workspace), complete(FALSE_CLAIM)], teacher: [accept, blockClaim] }, { action: 'reject' });

    expect(result.status).toBe('blocked');
    expect(result.status).not.toBe('completed');
    expect(result.rounds[0]).toMatchObject({ review: { required: true, rule: 'after_refusal' }, verdict: { verdict: 'block' }, outcome: 'blocked' });
    expect(existsSync(join(s.ws.workspace, 'shared.md'))).toBe(false);
    // The reviewer was told the facts: the write was rejected by a person, and no tool ran.
    const review = prompts.at(-1)?.map((m) => m.content).join('\n') ?? '';
    expect(review).toContain('refused (rejected by a person): write_file');
    expect(review).toMatch(/Tool calls that actually ran \(nothing else did\):\n- none/);
    expect(review).toContain(FALSE_CLAIM);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'blocked' });
  });

  it('an honest final answer after the rejection is accepted by the teacher and the run completes', async () => {
    const s = setup({ phase: 3 }, CONFIRM_WRITES);
    const { result } = await rejectedThenResumed(s, { student: [writeShared(s.ws.workspace), complete(HONEST)], teacher: [accept, accept] }, { action: 'reject' });

    expect(result.status).toBe('completed');
    expect(result.output).toBe(HONEST);
    expect(result.rounds[0]).toMatchObject({ review: { rule: 'after_refusal' }, verdict: { verdict: 'accept' } });
  });

  it('after the person approved the write and it ran, the final answer is routed by the usual rules', async () => {
    const s = setup({ phase: 3 }, CONFIRM_WRITES);
    const { result } = await rejectedThenResumed(s, { student: [writeShared(s.ws.workspace), complete(FALSE_CLAIM)], teacher: [accept] }, { action: 'approve' });

    expect(result.status).toBe('completed');
    expect(existsSync(join(s.ws.workspace, 'shared.md'))).toBe(true);
    expect(result.rounds.map((r) => r.review?.rule)).toEqual(['human_decided', 'not_required']);
  });

  it('when the teacher cannot review it (no answer), the claim is never delivered and the run is not green', async () => {
    const s = setup({ phase: 3, max_verdict_attempts: 1 }, CONFIRM_WRITES);
    const { result } = await rejectedThenResumed(s, { student: [writeShared(s.ws.workspace), complete(FALSE_CLAIM)], teacher: [accept] }, { action: 'reject' });

    expect(['blocked', 'failed']).toContain(result.status);
    expect(result.history.some((h) => h.decision.decision_type === 'complete')).toBe(false);
    expect(result.output ?? '').not.toContain('Posted');
  });

  it('with nobody to review it (unsupervised), the run ends "Completed — unverified" and lists the call that never ran', async () => {
    // A read the person wants to confirm: the only kind of call an unsupervised run may make.
    const s = setup({ enabled: false }, { 'fs/read_text_file': { effect: 'read', requires_user_confirmation: true } });
    const read: ScriptEntry = { json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: join(s.ws.workspace, 'meeting-notes.md') } } };
    const { result, events } = await rejectedThenResumed(s, { student: [read, complete('Summarised meeting-notes.md: three items.')], teacher: [] }, { action: 'reject' });

    expect(result.status).toBe('unverified');
    expect(result.output).toBe('Summarised meeting-notes.md: three items.');
    expect(result.message).toMatch(/nobody reviewed the final answer, and these calls never ran: read_text_file .*meeting-notes\.md.*\(rejected by a person\)/);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'unverified' });
  });
});
