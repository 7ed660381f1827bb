import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import type { ModelScriptInput, ScriptEntry } from '@shared/contracts/script';
import type { AgentSpecInput } from '@shared/contracts/spec';
import { acceptVerdict, complete, monitor, read, runScsNotes, scsNotesSetup, write } from '../../test-support/scs-notes-run';
import { formatScsEvent } from '../shells/cli/format-scs';

/**
 * Seed 001: the committee drafts alternative plans, the student selects one (and may edit it) or
 * vetoes them all; and a batch of file changes is a monitor trigger. The real filesystem MCP
 * server; the replay (scripted) committee, monitor and executor are the test doubles at the model boundary.
 */
const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function setup(scs: AgentSpecInput['scs']) {
  return scsNotesSetup(cleanups, { id: 'scs-alternatives', name: 'SCS alternatives', task: 'Write a summary of the notes to summary.md.', supervision: { phase: 4 } }, scs);
}

async function run(s: ReturnType<typeof setup>, script: ModelScriptInput) {
  const ran = await runScsNotes(s, script);
  expect(ran.events.map((e) => e.seq)).toEqual(ran.events.map((_, i) => i));
  return { ...ran, cli: ran.events.map(formatScsEvent).filter((l): l is string => l !== undefined) };
}

const planOf = (goal: string, allowed: string[]) => ({
  phase_goal: goal,
  plan: ['Read meeting-notes.md', 'Draft the summary', 'Write summary.md'],
  acceptance_criteria: ['summary.md exists and lists the action items'],
  allowed_tools: allowed,
  stop_conditions: [],
});
const twoPlans: ScriptEntry = { json: { alternatives: [planOf('Summarise by reading first', ['read_text_file']), planOf('Summarise and write the file', ['read_text_file', 'write_file'])] } };
const transcripts = (events: RunEvent[], role: 'committee' | 'monitor') => events.filter((e) => e.type === 'scs.transcript' && e.role === role);
const lastAsked = (e: RunEvent | undefined) => (e?.type === 'scs.transcript' ? (e.messages.at(-1)?.content ?? '') : '');

describe('SCS alternative plans (real filesystem server, replay models)', () => {
  it('the committee drafts 2 alternatives; the student picks #2 with an edit, which is validated and becomes the phase plan', async () => {
    const s = setup({ mode: 'on', monitor_every: 10, alternatives: 2 });
    const edit = { plan: ['Read meeting-notes.md', 'List the action items', 'Write summary.md with them'], acceptance_criteria: ['summary.md lists every action item'] };
    const { result, events, types, cli } = await run(s, {
      committee: [twoPlans],
      monitor: [monitor('approve_plan', 'Plan 2 writes the file; tighter steps.', { choice: 2, edit }), monitor('finish_allowed', 'summary.md was written.')],
      student: [read(s.ws), write(s.ws), complete],
      teacher: [acceptVerdict],
    });
    expect(result.status).toBe('completed');
    expect(types).toEqual(['scs.enabled', 'scs.committee.plan_drafted', 'scs.student.plan_approved', 'scs.supervisor.phase_started', 'scs.student.finish_allowed']);
    const drafted = events.find((e) => e.type === 'scs.committee.plan_drafted');
    expect(drafted?.type === 'scs.committee.plan_drafted' && drafted.alternatives?.map((p) => p.phase_goal)).toEqual(['Summarise by reading first', 'Summarise and write the file']);
    const approved = events.find((e) => e.type === 'scs.student.plan_approved');
    expect(approved).toMatchObject({ alternatives: 2, decision: { choice: 2, edit } });
    // The phase runs the chosen plan, edited: plan 2's tools, the student's steps and criteria.
    const started = events.find((e) => e.type === 'scs.supervisor.phase_started');
    expect(started?.type === 'scs.supervisor.phase_started' && started.plan).toEqual({ ...planOf('Summarise and write the file', ['read_text_file', 'write_file']), ...edit });
    expect(result.scs?.plan?.plan).toEqual(edit.plan);
    expect(existsSync(join(s.ws.workspace, 'summary.md'))).toBe(true);
    // The committee was asked for alternatives; the student saw both, numbered.
    const committeeCall = transcripts(events, 'committee')[0];
    expect(committeeCall?.type === 'scs.transcript' ? committeeCall.messages[0]?.content : '').toMatch(/Draft 2 genuinely different alternative plans/);
    expect(lastAsked(transcripts(events, 'monitor')[0])).toMatch(/The committee drafted 2 alternative plans[\s\S]*Plan 1:\n- goal: Summarise by reading first[\s\S]*Plan 2:\n- goal: Summarise and write the file/);
    // The CLI shows the alternatives and the choice.
    expect(cli).toContain('scs committee drafted 2 alternative phase plans\n  1. Summarise by reading first\n  2. Summarise and write the file');
    expect(cli).toContain('scs student approved plan 2 of 2 with edits (plan, acceptance_criteria) confidence=0.80');
  });

  it('an invalid edit is refused in words, the student is asked again, and its next answer stands', async () => {
    const s = setup({ mode: 'on', monitor_every: 10, alternatives: 2 });
    const { result, events, types, cli } = await run(s, {
      committee: [twoPlans],
      monitor: [
        monitor('approve_plan', 'Plan 2, shorter.', { choice: 2, edit: { plan: ['Write summary.md'], owner: 'me' } }),
        monitor('approve_plan', 'Plan 1 as drafted.', { choice: 1 }),
        monitor('finish_allowed', 'Read the notes.'),
      ],
      student: [read(s.ws), complete],
    });
    expect(result.status).toBe('completed');
    expect(types).toEqual(['scs.enabled', 'scs.committee.plan_drafted', 'scs.warning', 'scs.student.plan_approved', 'scs.supervisor.phase_started', 'scs.student.finish_allowed']);
    const warning = events.find((e) => e.type === 'scs.warning');
    const words = warning?.type === 'scs.warning' ? warning.message : '';
    expect(words).toMatch(/^The student's approval was refused: the student's edit of plan 2 is not a valid plan \(plan needs at least 3 entries; /);
    expect(words).toMatch(/an unknown field "owner"/);
    // Said in words: never the schema's own text.
    expect(words).not.toMatch(/Too small|Unrecognized key|expected array/);
    expect(words).toMatch(/The student is asked again\.$/);
    // The refusal is in the student's second prompt; the refused plan was never started.
    expect(lastAsked(transcripts(events, 'monitor')[1])).toMatch(/Your last answer was refused: the student's edit of plan 2 is not a valid plan/);
    const started = events.find((e) => e.type === 'scs.supervisor.phase_started');
    expect(started?.type === 'scs.supervisor.phase_started' && started.plan.phase_goal).toBe('Summarise by reading first');
    expect(cli).toContain('scs student approved plan 1 of 2 confidence=0.80');
    expect(cli.some((l) => l.startsWith("scs warning: The student's approval was refused"))).toBe(true);
  });

  it('a choice no alternative answers, refused twice, counts as a veto: the committee redrafts', async () => {
    const s = setup({ mode: 'on', monitor_every: 10, alternatives: 2, max_committee_retries: 1 });
    const { result, types, events } = await run(s, {
      committee: [twoPlans, twoPlans],
      monitor: [monitor('approve_plan', 'Plan 3.', { choice: 3 }), monitor('approve_plan', 'Plan 3!', { choice: 3 }), monitor('approve_plan', 'Plan 1.'), monitor('finish_allowed', 'Read.')],
      student: [read(s.ws), complete],
    });
    expect(result.status).toBe('completed');
    expect(types.slice(0, 6)).toEqual(['scs.enabled', 'scs.committee.plan_drafted', 'scs.warning', 'scs.warning', 'scs.committee.plan_drafted', 'scs.student.plan_approved']);
    const warnings = events.flatMap((e) => (e.type === 'scs.warning' ? [e.message] : []));
    expect(warnings[0]).toBe("The student's approval was refused: the student chose plan 3, but the committee drafted 2 plans. The student is asked again.");
    expect(warnings[1]).toMatch(/It counts as a veto: no plan was approved from this draft\.$/);
    expect(lastAsked(transcripts(events, 'committee')[1])).toMatch(/- the student approved no valid plan: the student chose plan 3/);
  });

  it('a veto of all alternatives is recorded, and the run goes on as the seed says: the committee redrafts with the reason', async () => {
    const s = setup({ mode: 'on', monitor_every: 10, alternatives: 2 });
    const { result, events, types, cli } = await run(s, {
      committee: [twoPlans, { json: planOf('Read, then write the summary', ['read_text_file', 'write_file']) }],
      monitor: [monitor('veto_plan', 'Neither plan checks the action items.'), monitor('approve_plan', 'This one does.'), monitor('finish_allowed', 'summary.md was written.')],
      student: [read(s.ws), write(s.ws), complete],
      teacher: [acceptVerdict],
    });
    expect(result.status).toBe('completed');
    expect(types.slice(0, 6)).toEqual(['scs.enabled', 'scs.committee.plan_drafted', 'scs.student.plan_vetoed', 'scs.committee.plan_drafted', 'scs.student.plan_approved', 'scs.supervisor.phase_started']);
    expect(events.find((e) => e.type === 'scs.student.plan_vetoed')).toMatchObject({ alternatives: 2, decision: { reason: 'Neither plan checks the action items.' } });
    // The second draft is a single plan: its approval names no alternatives.
    expect(events.find((e) => e.type === 'scs.student.plan_approved')).not.toHaveProperty('alternatives');
    expect(lastAsked(transcripts(events, 'committee')[1])).toMatch(/Earlier drafts were not approved; address this:\n- Neither plan checks the action items\./);
    expect(cli).toContain('scs student vetoed all 2 alternative plans: Neither plan checks the action items.');
    expect(readFileSync(join(s.ws.workspace, 'summary.md'), 'utf8')).toContain('Summary');
  });
});

describe('SCS file batch trigger (real filesystem server, replay models)', () => {
  const writeTo = (ws: { workspace: string }, file: string): ScriptEntry => ({
    json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(ws.workspace, file), content: `# ${file}` } },
  });

  it('after file_batch file-changing calls the monitor reviews them (reads do not count), then the batch starts again', async () => {
    const s = setup({ mode: 'on', monitor_every: 20, file_batch: 2 });
    const { result, events, cli } = await run(s, {
      committee: [{ json: planOf('Write four notes files', ['read_text_file', 'write_file']) }],
      monitor: [
        monitor('approve_plan', 'OK.'),
        monitor('accept_phase', 'Both files look right; go on.', { next_required_action: 'supervisor_continue' }),
        monitor('accept_phase', 'Two more; go on.', { next_required_action: 'supervisor_continue' }),
        monitor('finish_allowed', 'Four files written.'),
      ],
      student: [read(s.ws), writeTo(s.ws, 'a.md'), read(s.ws), writeTo(s.ws, 'b.md'), writeTo(s.ws, 'c.md'), writeTo(s.ws, 'd.md'), complete],
      teacher: [acceptVerdict, acceptVerdict, acceptVerdict, acceptVerdict],
    });
    expect(result.status).toBe('completed');
    for (const f of ['a.md', 'b.md', 'c.md', 'd.md']) expect(existsSync(join(s.ws.workspace, f))).toBe(true);
    const reviews = transcripts(events, 'monitor').map((e) => (e.type === 'scs.transcript' ? e.trigger : undefined));
    expect(reviews).toEqual(['plan', 'file_batch', 'file_batch', 'finish']);
    // The first batch review comes after the second write (round 4), not after the reads.
    const accepted = events.filter((e) => e.type === 'scs.student.phase_accepted');
    expect(accepted.map((e) => e.type === 'scs.student.phase_accepted' && e.trigger)).toEqual(['file_batch', 'file_batch']);
    const firstBatch = transcripts(events, 'monitor')[1];
    const asked = lastAsked(firstBatch);
    expect(asked).toMatch(/A batch of file changes: 2 write-effect call\(s\) in this phase so far/);
    expect(asked).toMatch(/Changed files in this phase \(write-effect calls\):\n- round 2: write_file .*a\.md → ok[\s\S]*- round 4: write_file .*b\.md → ok/);
    const before = events.filter((e) => e.type === 'round.completed' && e.seq < (firstBatch?.seq ?? 0));
    expect(before).toHaveLength(4);
    expect(cli).toContain('scs student accepted phase 1 confidence=0.80 (phase continues)');
  });

  it('file_batch 0 turns the trigger off', async () => {
    const s = setup({ mode: 'on', monitor_every: 20, file_batch: 0 });
    const { result, events } = await run(s, {
      committee: [{ json: planOf('Write two files', ['write_file']) }],
      monitor: [monitor('approve_plan', 'OK.'), monitor('finish_allowed', 'Written.')],
      student: [writeTo(s.ws, 'a.md'), writeTo(s.ws, 'b.md'), complete],
      teacher: [acceptVerdict, acceptVerdict],
    });
    expect(result.status).toBe('completed');
    expect(transcripts(events, 'monitor').map((e) => (e.type === 'scs.transcript' ? e.trigger : undefined))).toEqual(['plan', 'finish']);
  });
});
