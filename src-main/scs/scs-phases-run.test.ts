import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptEntry } from '@shared/contracts/script';
import type { AgentSpecInput } from '@shared/contracts/spec';
import { acceptVerdict, complete, monitor, read, runScsNotes, scsNotesSetup, write } from '../../test-support/scs-notes-run';

/**
 * SCS as seed 001 describes it, in a run: rolling phases, next_required_action and stop conditions
 * enforced, the evidence pack's changed files. Real filesystem MCP server; the models are the
 * replay (scripted) providers — the test double at the model boundary.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function setup(scs: AgentSpecInput['scs'], extra: Partial<AgentSpecInput> = {}) {
  return scsNotesSetup(
    cleanups,
    { id: 'scs-phases', name: 'SCS phases', task: 'Read the meeting notes, then write a summary to summary.md.', supervision: { phase: 4, max_repair_rounds: 0, rules: { validation_failed: false } } },
    scs,
    extra,
  );
}

const run = runScsNotes;

const plan = (goal: string, allowed: string[], extra: Record<string, unknown> = {}): ScriptEntry => ({
  json: { phase_goal: goal, plan: ['Look', 'Do', 'Check'], acceptance_criteria: [`${goal}: done`], allowed_tools: allowed, stop_conditions: [], ...extra },
});
describe('SCS rolling phases in a run', () => {
  it('a run moves to phase 2 after accept_phase: each phase runs under its own plan, and the monitor sees the phase\'s changed files', async () => {
    const s = setup({ mode: 'on', monitor_every: 1 });
    const { result, types, events } = await run(s, {
      committee: [plan('Read the notes', ['read_text_file']), plan('Write summary.md', ['write_file'])],
      monitor: [
        monitor('approve_plan', 'Read first.'),
        monitor('accept_phase', 'The notes were read: the first milestone is met.'),
        monitor('approve_plan', 'Now the write.'),
        monitor('accept_phase', 'Written; finish now.', { next_required_action: 'finish' }),
        monitor('finish_allowed', 'summary.md was written.'),
      ],
      student: [read(s.ws), write(s.ws), complete],
      teacher: [acceptVerdict],
    });
    expect(result.status, result.message).toBe('completed');
    expect(types).toEqual([
      'scs.enabled',
      'scs.committee.plan_drafted',
      'scs.student.plan_approved',
      'scs.supervisor.phase_started',
      'scs.student.phase_accepted',
      'scs.committee.plan_drafted',
      'scs.student.plan_approved',
      'scs.supervisor.phase_started',
      'scs.student.phase_accepted',
      'scs.student.finish_allowed',
    ]);
    expect(events.flatMap((e) => (e.type === 'scs.supervisor.phase_started' ? [[e.phase, e.plan.phase_goal]] : []))).toEqual([
      [1, 'Read the notes'],
      [2, 'Write summary.md'],
    ]);
    expect(result.scs).toMatchObject({ phase: 2, status: 'finished', decision: 'finish_allowed' });
    // The committee drafting phase 2 was asked for phase 2 and saw the accepted phase in the decisions so far.
    const drafts = events.filter((e) => e.type === 'scs.transcript' && e.role === 'committee');
    expect(drafts[1]?.type === 'scs.transcript' && drafts[1].messages.at(-1)?.content).toMatch(/Phase 2, draft 1\.[\s\S]*accept_phase: The notes were read/);
    // The monitor's evidence pack in phase 2 lists the write as a changed file.
    const atFinish = events.filter((e) => e.type === 'scs.transcript' && e.role === 'monitor' && e.trigger === 'finish').at(-1);
    const prompt = atFinish?.type === 'scs.transcript' ? (atFinish.messages.at(-1)?.content ?? '') : '';
    expect(prompt).toContain(`Changed files in this phase (write-effect calls):\n- round 2: write_file ${join(s.ws.workspace, 'summary.md')} → ok`);
    expect(existsSync(join(s.ws.workspace, 'summary.md'))).toBe(true);
  });
});

describe('next_required_action, enforced', () => {
  it('an executor decision against next_required_action never executes: the boundary refuses it with the reason', async () => {
    const s = setup({ mode: 'on', monitor_every: 10 });
    const { result } = await run(s, {
      committee: [plan('Summarise the notes', ['read_text_file', 'write_file'], { next_required_action: 'read_text_file' })],
      monitor: [monitor('approve_plan', 'Read first.'), monitor('accept_phase', 'Read first, then write.', { next_required_action: 'supervisor_continue' }), monitor('finish_allowed', 'summary.md was written.')],
      student: [write(s.ws), read(s.ws), write(s.ws), complete],
      teacher: [acceptVerdict],
    });
    expect(result.rounds[0]?.outcome).toBe('failed');
    expect(result.rounds[0]?.validation?.issues[0]).toMatchObject({
      code: 'phase_constraint',
      message: "a call of write_file contradicts next_required_action: the phase 1 brief's next_required_action is to call read_text_file first",
    });
    // The refused write never ran: the only write is the one after the read.
    expect(result.executions.map((e) => e.tool)).toEqual(['read_text_file', 'write_file']);
    expect(result.status).toBe('completed');
  });

  it('after the monitor says finish, a further tool call is refused; the complete passes', async () => {
    const s = setup({ mode: 'on', monitor_every: 1 });
    const { result } = await run(s, {
      committee: [plan('Read the notes', ['read_text_file'])],
      monitor: [monitor('approve_plan', 'OK.'), monitor('accept_phase', 'Read: the task is done.', { next_required_action: 'finish' }), monitor('accept_phase', 'Still done.', { next_required_action: 'finish' }), monitor('finish_allowed', 'The notes were read.')],
      student: [read(s.ws), read(s.ws, 'other.md'), complete],
    });
    expect(result.rounds[1]?.validation?.issues[0]?.message).toMatch(/^a call of read_text_file contradicts next_required_action: the monitor's next_required_action is finish/);
    expect(result.executions).toHaveLength(1);
    expect(result.status).toBe('completed');
  });
});

describe('stop conditions, enforced', () => {
  it('a tool result that matches a stop condition stops the phase with its evidence; the monitor\'s rethink replans', async () => {
    const s = setup({ mode: 'on', monitor_every: 10 });
    const { result, events, types } = await run(s, {
      committee: [plan('Read notes.md', ['read_text_file'], { stop_conditions: ['the notes are missing ("ENOENT")'] }), plan('Read meeting-notes.md instead', ['read_text_file'])],
      monitor: [monitor('approve_plan', 'OK.'), monitor('rethink_plan', 'notes.md does not exist: plan around it.'), monitor('approve_plan', 'OK.'), monitor('finish_allowed', 'The notes were read.')],
      student: [read(s.ws, 'notes.md'), read(s.ws), complete],
    });
    expect(result.status).toBe('completed');
    const stopped = events.find((e) => e.type === 'scs.supervisor.phase_stopped');
    expect(stopped).toMatchObject({ phase: 1, round: 0, condition: 'the notes are missing ("ENOENT")', matched: 'the result of round 1 contains "ENOENT"', changed_files: [] });
    // The evidence is the failing round's events, cited by id.
    const ids = new Set(events.map((e) => e.id));
    expect(stopped?.type === 'scs.supervisor.phase_stopped' && stopped.evidence.length === 1 && stopped.evidence.every((id) => ids.has(id))).toBe(true);
    expect(types.slice(4, 7)).toEqual(['scs.supervisor.phase_stopped', 'scs.student.rethink_requested', 'scs.committee.plan_drafted']);
    // The monitor is told why the phase stopped, with the evidence to cite.
    const review = events.find((e) => e.type === 'scs.transcript' && e.role === 'monitor' && e.trigger === 'stop_condition');
    expect(review?.type === 'scs.transcript' && review.messages.at(-1)?.content).toContain(
      `The phase stopped: its stop condition "the notes are missing ("ENOENT")" matched — the result of round 1 contains "ENOENT" (evidence: ${stopped?.type === 'scs.supervisor.phase_stopped' ? stopped.evidence[0] : ''}).`,
    );
  });
});
