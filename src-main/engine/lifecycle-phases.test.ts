import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import type { ModelScript, ScriptEntry } from '@shared/contracts/script';
import { AgentSpec, type AgentSpecInput } from '@shared/contracts/spec';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runAgent } from './run-agent';
import { tempNotesWorkspace } from '../../test-support/workspace';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function setup(supervision: AgentSpecInput['supervision'], extra: Partial<AgentSpecInput> = {}) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'phases',
    name: 'Phases',
    instructions: 'Work in ${workspace}.',
    task: 'Do it.',
    workspace: 'notes-sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file', 'write_file', 'list_directory'] }],
    supervision,
    ...extra,
  });
  return { ws, spec };
}

async function run(s: ReturnType<typeof setup>, script: Partial<ModelScript>, runId?: string) {
  const events: RunEvent[] = [];
  const result = await runAgent({
    spec: s.spec,
    specDir: s.ws.dir,
    workspace: s.ws.workspace,
    script: { latency_ms: 0, student: [], teacher: [], ...script },
    ledger: createMemoryLedger(),
    onEvent: (e) => events.push(e),
    runId,
  });
  return { result, events, learning: events.filter((e): e is Extract<RunEvent, { type: 'learning.example' }> => e.type === 'learning.example') };
}

const read = (ws: { workspace: string }): ScriptEntry => ({ json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: join(ws.workspace, 'ideas.md') } } });
const write = (ws: { workspace: string }, file: string): ScriptEntry => ({
  json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(ws.workspace, file), content: `written ${file}` } },
});
const complete = (output = 'done', confidence?: number): ScriptEntry => ({ json: { decision_type: 'complete', output, ...(confidence === undefined ? {} : { confidence }) } });
const accept: ScriptEntry = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };

describe('lifecycle phases', () => {
  it('phase 0 (teacher only): the teacher decides every round, the student is never asked, and each decision is a demonstration', async () => {
    const s = setup({ phase: 0 });
    const { result, learning } = await run(s, { teacher: [write(s.ws, 'by-teacher.md'), complete()], student: [{ error: 'the student must not be called in phase 0' }] });
    expect(result.status).toBe('completed');
    expect(result.rounds.map((r) => [r.proposer, r.review?.rule])).toEqual([
      ['teacher', 'teacher_proposed'],
      ['teacher', 'teacher_proposed'],
    ]);
    // A protected write decided by the teacher itself counts as reviewed.
    expect(readFileSync(join(s.ws.workspace, 'by-teacher.md'), 'utf8')).toBe('written by-teacher.md');
    expect(learning.map((l) => l.kind)).toEqual(['demonstration', 'demonstration']);
    expect(learning[0]?.context.length).toBeGreaterThan(1);
  });

  it('phase 1 (shadow): the teacher acts, the student proposes alongside and is never executed; disagreements are learning data', async () => {
    const s = setup({ phase: 1 });
    const { result, learning } = await run(s, {
      teacher: [read(s.ws), complete()],
      // Round 0 the student agrees; round 1 it would have written a file instead of finishing.
      student: [read(s.ws), write(s.ws, 'shadow.md')],
    });
    expect(result.status).toBe('completed');
    expect(result.executions.map((e) => e.tool)).toEqual(['read_text_file']);
    expect(existsSync(join(s.ws.workspace, 'shadow.md'))).toBe(false);
    const shadows = learning.filter((l) => l.kind === 'shadow');
    expect(shadows.map((l) => l.agreement)).toEqual([true, false]);
    expect(shadows[1]?.student_candidate).toMatchObject({ tool_name: 'write_file' });
    expect(shadows[1]?.final_decision).toMatchObject({ decision_type: 'complete' });
  });

  it('phase 2 (fully gated): every student decision is reviewed, reads and finishes included', async () => {
    const s = setup({ phase: 2 });
    const { result } = await run(s, { student: [read(s.ws), complete()], teacher: [accept, accept] });
    expect(result.status).toBe('completed');
    expect(result.rounds.map((r) => r.review)).toEqual([
      { required: true, rule: 'review_all' },
      { required: true, rule: 'review_all' },
    ]);
  });

  it('phase 3 (risk-gated): each configured rule fires and is recorded', async () => {
    const s = setup({ phase: 3, rules: { complete: true, tools: ['list_directory'], min_confidence: 0.6 } });
    const { result } = await run(s, {
      student: [
        { json: { decision_type: 'tool_call', tool_name: 'list_directory', arguments: { path: s.ws.workspace } } },
        { json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: join(s.ws.workspace, 'ideas.md') }, confidence: 0.3 } },
        { json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: join(s.ws.workspace, 'ideas.md') }, confidence: 0.9 } },
        write(s.ws, 'out.md'),
        complete('done', 0.95),
      ],
      teacher: [accept, accept, accept, accept],
    });
    expect(result.status).toBe('completed');
    expect(result.rounds.map((r) => r.review?.rule)).toEqual(['listed_tool', 'low_confidence', 'not_required', 'protected_effect', 'finish']);
  });

  it('phase 3 sampled review: the seeded sampler draws the same rounds for the same run', async () => {
    const s = setup({ phase: 3, rules: { sample_rate: 0.5, sample_seed: 11 } });
    const script = { student: Array.from({ length: 6 }, () => read(s.ws)).concat([complete()]), teacher: Array.from({ length: 7 }, () => accept) };
    const first = await run(s, script, 'sampled-run-0001');
    const again = await run(s, script, 'sampled-run-0001');
    const rules = first.result.rounds.map((r) => r.review?.rule);
    expect(rules).toEqual(again.result.rounds.map((r) => r.review?.rule));
    expect(rules).toContain('sampled');
    expect(rules).toContain('not_required');
  });

  it('phase 4 (autonomous): reads and finishes pass unreviewed, a protected write is still reviewed (I4)', async () => {
    const s = setup({ phase: 4, rules: { complete: true } });
    const { result } = await run(s, { student: [read(s.ws), write(s.ws, 'auto.md'), complete()], teacher: [accept] });
    expect(result.rounds.map((r) => r.review?.rule)).toEqual(['not_required', 'protected_effect', 'not_required']);
    expect(result.status).toBe('completed');
  });
});

describe('handover', () => {
  const escalate: ScriptEntry = { json: { verdict: 'escalate', reason_codes: ['off_task'], explanation: 'The student is lost; I will take over.' } };

  it('an escalation hands the next rounds to the teacher, then back to the student', async () => {
    const s = setup({ phase: 3, takeover_rounds: 2 });
    const { result, events } = await run(s, {
      student: [write(s.ws, 'wrong.md'), complete('student finished')],
      // The last verdict: the student's answer follows the escalated write, so the teacher checks it.
      teacher: [escalate, read(s.ws), write(s.ws, 'teacher.md'), accept],
    });
    expect(result.status).toBe('completed');
    expect(result.output).toBe('student finished');
    expect(result.rounds.at(-1)?.review?.rule).toBe('after_refusal');
    expect(result.rounds.map((r) => [r.proposer, r.outcome])).toEqual([
      ['student', 'escalated'],
      ['teacher', 'executed'],
      ['teacher', 'executed'],
      ['student', 'delivered'],
    ]);
    expect(events.filter((e) => e.type === 'handover').map((e) => e.type === 'handover' && [e.to, e.reason, e.rounds])).toEqual([
      ['teacher', 'escalation', 2],
      ['student', 'takeover_ended', undefined],
    ]);
    expect(existsSync(join(s.ws.workspace, 'wrong.md'))).toBe(false);
    expect(existsSync(join(s.ws.workspace, 'teacher.md'))).toBe(true);
  });

  it('with on_escalate "fail" the run ends escalated', async () => {
    const s = setup({ phase: 3, on_escalate: 'fail' });
    const { result } = await run(s, { student: [write(s.ws, 'x.md')], teacher: [escalate] });
    expect(result.status).toBe('escalated');
    expect(result.message).toMatch(/take over/);
  });
});

describe('student repair rounds', () => {
  it('an invalid decision is repaired by the student within the same round, bounded by max_repair_rounds', async () => {
    const s = setup({ phase: 3, max_repair_rounds: 1 });
    const { result, events } = await run(s, { student: [{ text: 'I will read it now.' }, read(s.ws), complete()] });
    expect(result.status).toBe('completed');
    expect(result.rounds[0]?.repairs).toHaveLength(1);
    expect(result.rounds[0]?.outcome).toBe('executed');
    expect(events.filter((e) => e.type === 'candidate.proposed' && e.round === 0).map((e) => e.type === 'candidate.proposed' && e.attempt)).toEqual([0, 1]);
  });
});

describe('privacy', () => {
  it('a model on another host is refused before the run starts unless the workspace allows that host', async () => {
    const s = setup({ phase: 3 }, { models: { student: { provider: 'script' }, teacher: { provider: 'openai_compatible', base_url: 'https://api.example.com/v1', model: 'big-teacher' } } });
    const { result, events } = await run(s, {});
    expect(result.status).toBe('failed');
    expect(result.setup_error).toMatch(/teacher model api\.example\.com:big-teacher would send this run's data to api\.example\.com.*does not allow/);
    const started = events[0];
    expect(started?.type === 'run.started' && started.exposure).toEqual([
      expect.objectContaining({ role: 'student', model: 'replay', local: true }),
      expect.objectContaining({ role: 'teacher', local: false, host: 'api.example.com', data: expect.arrayContaining(["the student's candidates"]) }),
    ]);
  });
});
