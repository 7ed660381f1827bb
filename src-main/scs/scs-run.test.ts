import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelScriptInput, ScriptEntry } from '@shared/contracts/script';
import type { AgentSpecInput } from '@shared/contracts/spec';
import { acceptVerdict, complete, monitor, read, runScsNotes, scsNotesSetup, write } from '../../test-support/scs-notes-run';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function setup(scs: AgentSpecInput['scs'], extra: Partial<AgentSpecInput> = {}) {
  return scsNotesSetup(cleanups, { id: 'scs-run', name: 'SCS run', task: 'Write a summary of the notes to summary.md.', supervision: { phase: 4 } }, scs, extra);
}

async function run(s: ReturnType<typeof setup>, script: ModelScriptInput) {
  const ran = await runScsNotes(s, script);
  expect(ran.events.map((e) => e.seq)).toEqual(ran.events.map((_, i) => i));
  return ran;
}

const plan = (allowed: string[], goal = 'Summarise the meeting notes'): ScriptEntry => ({
  json: {
    phase_goal: goal,
    plan: ['Read meeting-notes.md', 'Draft the summary', 'Write summary.md'],
    acceptance_criteria: ['summary.md exists and lists the action items'],
    allowed_tools: allowed,
    stop_conditions: ['the notes are missing'],
  },
});
describe('SCS in a run (real filesystem server, replay models)', () => {
  it('approve: the supervisor runs only the approved phase, and the finish passes the monitor\'s gate', async () => {
    const s = setup({ mode: 'on', monitor_every: 10 });
    const { result, types, events } = await run(s, {
      committee: [plan(['read_text_file', 'write_file'])],
      monitor: [monitor('approve_plan', 'A sound plan.'), monitor('finish_allowed', 'summary.md was written.')],
      student: [read(s.ws), write(s.ws), complete],
      teacher: [acceptVerdict],
    });
    expect(result.status).toBe('completed');
    expect(types).toEqual(['scs.enabled', 'scs.committee.plan_drafted', 'scs.student.plan_approved', 'scs.supervisor.phase_started', 'scs.student.finish_allowed']);
    expect(result.scs).toMatchObject({ mode: 'on', active: true, status: 'finished', phase: 1, decision: 'finish_allowed' });
    // Committee and monitor transcripts are in the trace, for inspection on demand.
    const transcripts = events.filter((e) => e.type === 'scs.transcript');
    expect(transcripts.map((e) => e.type === 'scs.transcript' && [e.role, e.trigger])).toEqual([
      ['committee', undefined],
      ['monitor', 'plan'],
      ['monitor', 'finish'],
    ]);
    // Each records what its call cost: a replay's scripted latency, no tokens.
    expect(transcripts.map((e) => e.type === 'scs.transcript' && [e.latency_ms, e.usage])).toEqual([
      [0, undefined],
      [0, undefined],
      [0, undefined],
    ]);
    expect(existsSync(join(s.ws.workspace, 'summary.md'))).toBe(true);
  });

  it('a tool outside the approved plan is rejected by the boundary\'s validation and never runs', async () => {
    const s = setup({ mode: 'on', monitor_every: 10 }, { supervision: { phase: 4, max_repair_rounds: 0, rules: { validation_failed: false } } });
    const { result } = await run(s, {
      committee: [plan(['read_text_file'])],
      monitor: [monitor('approve_plan', 'Read-only phase.'), monitor('accept_phase', 'Go on.', { next_required_action: 'supervisor_continue' }), monitor('finish_allowed', 'Done.')],
      student: [write(s.ws), read(s.ws), complete],
    });
    expect(result.rounds[0]?.validation?.issues[0]).toMatchObject({ code: 'phase_constraint' });
    expect(result.rounds[0]?.outcome).toBe('failed');
    expect(existsSync(join(s.ws.workspace, 'summary.md'))).toBe(false);
    expect(result.status).toBe('completed');
  });

  it('the seed\'s regression case: a finish right after a failed tool is refused, the executor goes back and fixes it', async () => {
    const s = setup({ mode: 'on', monitor_every: 10 });
    const { result, events, types } = await run(s, {
      committee: [plan(['read_text_file', 'write_file'])],
      monitor: [
        monitor('approve_plan', 'OK.'),
        monitor('accept_phase', 'A missing file is recoverable; continue.', { next_required_action: 'supervisor_continue' }),
        monitor('finish_rejected', 'The read failed and summary.md does not exist: no evidence for the criterion.'),
        monitor('finish_allowed', 'summary.md exists now.'),
      ],
      student: [read(s.ws, 'missing.md'), complete, write(s.ws), complete],
      teacher: [acceptVerdict],
    });
    expect(result.status).toBe('completed');
    expect(types).toContain('scs.student.finish_rejected');
    expect(result.rounds[1]).toMatchObject({ outcome: 'blocked', reason: 'finish_rejected' });
    // The refused finish never reached the canonical history.
    expect(result.history.filter((h) => h.decision.decision_type === 'complete')).toHaveLength(1);
    expect(readFileSync(join(s.ws.workspace, 'summary.md'), 'utf8')).toContain('Summary');
    const started = events.find((e) => e.type === 'candidate.proposed' && e.round === 2);
    expect(started).toBeDefined();
    // The monitor's evidence pack at the refused finish: criteria, the failure, the last 20 events by id.
    const atFinish = events.find((e) => e.type === 'scs.transcript' && e.role === 'monitor' && e.trigger === 'finish');
    const prompt = atFinish?.type === 'scs.transcript' ? (atFinish.messages.at(-1)?.content ?? '') : '';
    expect(prompt).toMatch(/Acceptance criteria:\n- summary\.md exists and lists the action items/);
    expect(prompt).toMatch(/Failures so far:\n- round 1 .*read_text_file → executed: error/);
    const cited = [...prompt.matchAll(/^- \[([^\]]+)\]/gm)].map((m) => m[1]);
    expect(cited.length).toBe(20);
    const ids = new Set(events.map((e) => e.id));
    for (const id of cited) expect(ids.has(id!)).toBe(true);
  });

  it('veto ×3: no plan is ever approved silently — the run ends blocked with the reasons, nothing executed', async () => {
    const s = setup({ mode: 'on', max_committee_retries: 2 });
    const { result, types } = await run(s, {
      committee: [plan(['write_file']), plan(['write_file']), plan(['write_file'])],
      monitor: [monitor('veto_plan', 'Writes before reading.'), monitor('veto_plan', 'Still no read step.'), monitor('veto_plan', 'Same plan again.')],
      student: [write(s.ws)],
    });
    expect(result.status).toBe('blocked');
    expect(result.message).toMatch(/SCS blocked: .*Writes before reading.*no plan was approved after 3 draft/);
    expect(result.executions).toEqual([]);
    expect(types.filter((t) => t === 'scs.student.plan_vetoed')).toHaveLength(3);
    expect(types.at(-1)).toBe('scs.supervisor.phase_blocked');
  });

  it('near the step budget the monitor may extend it (bounded): the run goes past its max_rounds', async () => {
    const s = setup({ mode: 'on', monitor_every: 10, budget_warning: 1, extension_rounds: 2 }, { limits: { max_rounds: 2 } });
    const { result, types } = await run(s, {
      committee: [plan(['read_text_file', 'write_file'])],
      monitor: [monitor('approve_plan', 'OK.'), monitor('extend_steps', 'One more write and the finish.', { extend_by: 2 }), monitor('finish_allowed', 'Done.')],
      student: [read(s.ws), write(s.ws), complete],
      teacher: [acceptVerdict],
    });
    expect(types).toContain('scs.budget.extended');
    expect(result.status).toBe('completed');
    expect(result.rounds).toHaveLength(3);
  });

  it('auto: a read-only task with a short budget stays off; offered write tools turn SCS on, with the reason recorded', async () => {
    const readOnly = setup({ mode: 'auto' }, { servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file'] }] });
    const off = await run(readOnly, { student: [read(readOnly.ws), complete] });
    expect(off.result.status).toBe('completed');
    expect(off.events.find((e) => e.type === 'scs.enabled')).toMatchObject({ active: false, reason: expect.stringMatching(/read-only/) });
    expect(off.result.scs).toMatchObject({ active: false, status: 'off' });

    const writes = setup({ mode: 'auto', monitor_every: 10 });
    const on = await run(writes, {
      committee: [plan(['read_text_file'])],
      monitor: [monitor('approve_plan', 'OK.'), monitor('finish_allowed', 'Done.')],
      student: [read(writes.ws), complete],
    });
    expect(on.events.find((e) => e.type === 'scs.enabled')).toMatchObject({ active: true, reason: expect.stringMatching(/protected tools offered \(write_file\)/) });
    expect(on.result.status).toBe('completed');
  });

  it('a monitor that fails on write work blocks the run (fail closed)', async () => {
    const s = setup({ mode: 'on' });
    const { result } = await run(s, { committee: [plan(['write_file'])], monitor: [{ error: 'monitor model crashed' }], student: [write(s.ws)] });
    expect(result.status).toBe('blocked');
    expect(result.message).toMatch(/the monitor failed: monitor model crashed; write work fails closed/);
    expect(result.executions).toEqual([]);
  });
});
