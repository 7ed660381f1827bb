import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { HumanAnswer } from '@shared/contracts/intervention';
import type { ChatMessage } from '@shared/contracts/model';
import type { ModelScript, ScriptEntry } from '@shared/contracts/script';
import { AgentSpec, type AgentSpecInput } from '@shared/contracts/spec';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { createScriptProvider } from '../providers/script-provider';
import type { ModelProvider } from '../providers/provider';
import { askingSpecInput } from '../../test-support/asking-spec';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { RunCheckpoint } from './checkpoint';
import { waitingStoresIn } from '../../test-support/waiting-stores';
import { runAgent } from './run-agent';
import { RunManager } from './run-manager';

/** A student's question to a person waits, persisted, like an escalation; the answer resumes the run. */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function setup(supervision: AgentSpecInput['supervision'] = { enabled: false }) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const spec = AgentSpec.parse(askingSpecInput(supervision));
  return { ws, spec };
}

const ask: ScriptEntry = { json: { decision_type: 'ask_user', question: 'Which note should I summarise?' } };
const confirmRequest: ScriptEntry = { json: { decision_type: 'request_confirmation', message: 'Shall I overwrite summary.md?' } };
const complete: ScriptEntry = { json: { decision_type: 'complete', output: 'done' } };

/** TEST DOUBLE at the model boundary: the replay student, recording every prompt it is sent. */
function recordingStudent(script: ModelScript, startAt = 0): { provider: ModelProvider; prompts: ChatMessage[][] } {
  const inner = createScriptProvider(script, 'student', { startAt });
  const prompts: ChatMessage[][] = [];
  return { prompts, provider: { label: inner.label, position: inner.position, complete: async (request) => (prompts.push(request.messages), inner.complete(request)) } };
}

function dataFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-questions-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function firstRun(s: ReturnType<typeof setup>, student: ScriptEntry[]) {
  const events: RunEvent[] = [];
  const script: ModelScript = { latency_ms: 0, student, teacher: [], committee: [], monitor: [] };
  const result = await runAgent({ spec: s.spec, specDir: s.ws.dir, workspace: s.ws.workspace, script, ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
  return { result, events, script };
}

function finished(manager: RunManager, events: RunEvent[], runId: string): Promise<RunEvent> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      const end = events.find((e) => e.run_id === runId && e.type === 'run.finished');
      if (end) {
        clearInterval(poll);
        resolve(end);
      }
    }, 20);
  }).then(async (end) => (await manager.closeAll(), end as RunEvent));
}

describe("a student's question to a person", () => {
  it('ask_user: the run waits for a reply, persisted, instead of ending as needs input', async () => {
    const s = setup();
    const { result, events } = await firstRun(s, [ask, complete]);
    expect(result.status).toBe('waiting');
    expect(result.intervention).toMatchObject({ kind: 'ask_user', reason: 'Which note should I summarise?', options: ['reply', 'stop'] });
    expect(result.checkpoint?.intervention.kind).toBe('ask_user');
    expect(events.at(-1)).toMatchObject({ type: 'intervention.requested', intervention: { kind: 'ask_user' } });
    expect(events.some((e) => e.type === 'run.finished')).toBe(false);
  });

  it('after a restart (a new RunManager on the same data folder) the reply resumes the run; it is recorded in the event and the history', async () => {
    const s = setup();
    const dir = dataFolder();
    const events: RunEvent[] = [];
    const deps = () => ({ ledger: createMemoryLedger(), onEvent: (e: RunEvent) => events.push(e), baseDir: s.ws.dir, checkpoints: waitingStoresIn(dir, cleanups).checkpoints });
    const before = new RunManager(deps());
    const { run_id } = before.start({ ...s.spec, workspace: s.ws.workspace, script: { latency_ms: 0, student: [ask, complete], teacher: [], committee: [], monitor: [] } }, {}, { allowed_hosts: [] });
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => events.some((e) => e.type === 'intervention.requested') && (clearInterval(poll), resolve()), 20);
    });
    await before.closeAll();

    const after = new RunManager(deps());
    const [waiting] = after.pending();
    expect(waiting).toMatchObject({ run_id, kind: 'ask_user', reason: 'Which note should I summarise?' });
    expect(after.answer(run_id, waiting!.id, { action: 'reply', text: 'The meeting notes from Monday.' })).toBe(true);
    const end = await finished(after, events, run_id);
    expect(end).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(events.find((e) => e.type === 'intervention.answered')).toMatchObject({ answer: { action: 'reply', text: 'The meeting notes from Monday.' } });
    expect(after.pending()).toEqual([]);
  });

  it('the student sees the reply in its next prompt, and the history keeps it as the question\'s result', async () => {
    const s = setup();
    const first = await firstRun(s, [ask, complete]);
    const checkpoint = RunCheckpoint.parse(JSON.parse(JSON.stringify(first.result.checkpoint)));
    const student = recordingStudent(first.script, checkpoint.script_positions.student);
    const teacher = createScriptProvider(first.script, 'teacher');
    const result = await runAgent({
      spec: checkpoint.spec,
      specDir: checkpoint.spec_dir,
      workspace: checkpoint.workspace,
      script: checkpoint.script,
      ledger: createMemoryLedger(),
      onEvent: () => undefined,
      providers: { student: student.provider, teacher },
      resume: { checkpoint, answer: { action: 'reply', text: 'The meeting notes from Monday.' } },
    });
    expect(result.status).toBe('completed');
    const prompt = JSON.stringify(student.prompts[0]);
    expect(prompt).toContain('The meeting notes from Monday.');
    expect(result.history[0]).toMatchObject({ decision: { decision_type: 'ask_user' }, result: 'the user replied: The meeting notes from Monday.' });
  });

  it('request_confirmation waits for yes or no; "no" goes back to the student, who carries on', async () => {
    const s = setup();
    const first = await firstRun(s, [confirmRequest, complete]);
    expect(first.result.intervention).toMatchObject({ kind: 'request_confirmation', reason: 'Shall I overwrite summary.md?', options: ['yes', 'no', 'stop'] });
    const checkpoint = RunCheckpoint.parse(JSON.parse(JSON.stringify(first.result.checkpoint)));
    const events: RunEvent[] = [];
    const result = await runAgent({ spec: checkpoint.spec, specDir: checkpoint.spec_dir, workspace: checkpoint.workspace, script: checkpoint.script, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), resume: { checkpoint, answer: { action: 'no', note: 'keep the old one' } } });
    expect(result.status).toBe('completed');
    expect(result.history[0]?.result).toBe('the user answered no (keep the old one)');
    expect(events[0]).toMatchObject({ type: 'intervention.answered', answer: { action: 'no', note: 'keep the old one' } });
  });

  it('stop ends the run stopped by the person', async () => {
    const s = setup();
    const first = await firstRun(s, [ask]);
    const checkpoint = first.result.checkpoint!;
    const events: RunEvent[] = [];
    const result = await runAgent({ spec: checkpoint.spec, specDir: checkpoint.spec_dir, workspace: checkpoint.workspace, script: checkpoint.script, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), resume: { checkpoint, answer: { action: 'stop' } } });
    expect(result.status).toBe('stopped');
    expect(events.map((e) => e.type)).toEqual(['intervention.answered', 'run.finished']);
  });

  it('a question answered twice is refused the second time; an answer it does not offer is refused and it stays waiting', async () => {
    const s = setup();
    const first = await firstRun(s, [ask, complete]);
    const checkpoint = first.result.checkpoint!;
    const dir = dataFolder();
    const { checkpoints } = waitingStoresIn(dir, cleanups);
    checkpoints.save(checkpoint);
    const manager = new RunManager({ ledger: createMemoryLedger(), onEvent: () => undefined, baseDir: s.ws.dir, checkpoints });
    expect(() => manager.answer(checkpoint.run_id, checkpoint.intervention.id, { action: 'approve' })).toThrow(/not one of the answers/);
    expect(checkpoints.list()).toHaveLength(1);
    expect(manager.answer(checkpoint.run_id, checkpoint.intervention.id, { action: 'reply', text: 'Monday.' })).toBe(true);
    expect(manager.answer(checkpoint.run_id, checkpoint.intervention.id, { action: 'reply', text: 'Tuesday.' })).toBe(false);
    await manager.closeAll();
  });

  it('a reply has bounded, non-empty text; only a reply has text', () => {
    expect(HumanAnswer.safeParse({ action: 'reply', text: 'ok' }).success).toBe(true);
    expect(HumanAnswer.safeParse({ action: 'reply' }).success).toBe(false);
    expect(HumanAnswer.safeParse({ action: 'reply', text: '   ' }).success).toBe(false);
    expect(HumanAnswer.safeParse({ action: 'reply', text: 'x'.repeat(4001) }).success).toBe(false);
    expect(HumanAnswer.safeParse({ action: 'approve', text: 'ok' }).success).toBe(false);
  });

  it("on_block ask_user: a blocked decision waits for the person's word on how to go on", async () => {
    const s = setup({ phase: 2, on_block: 'ask_user' });
    const block: ScriptEntry = { json: { verdict: 'block', reason_codes: ['unsafe_effect'], explanation: 'Not that file.' } };
    const write: ScriptEntry = { json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(s.ws.workspace, 'x.md'), content: 'x' } } };
    const script: ModelScript = { latency_ms: 0, student: [write, complete], teacher: [block, { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } }], committee: [], monitor: [] };
    const first = await runAgent({ spec: s.spec, specDir: s.ws.dir, workspace: s.ws.workspace, script, ledger: createMemoryLedger(), onEvent: () => undefined });
    expect(first.status).toBe('waiting');
    expect(first.intervention).toMatchObject({ kind: 'blocked', options: ['reply', 'stop'] });
    const checkpoint = first.checkpoint!;
    const result = await runAgent({ spec: checkpoint.spec, specDir: checkpoint.spec_dir, workspace: checkpoint.workspace, script: checkpoint.script, ledger: createMemoryLedger(), onEvent: () => undefined, resume: { checkpoint, answer: { action: 'reply', text: 'Just finish.' } } });
    expect(result.status).toBe('completed');
  });
});
