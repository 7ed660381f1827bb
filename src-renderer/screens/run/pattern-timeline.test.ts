import { describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import type { JudgmentRecord } from '@shared/pattern/contracts';
import { eventLog } from '../../testing/event-fixtures';
import supervisorJson from '../../testing/recorded/pattern-supervisor.events.json';
import pipelineJson from '../../testing/recorded/pattern-pipeline.events.json';
import { judgmentTook, memberRunPlace, patternTimeline } from './pattern-timeline';

const supervisorRun = RunEvent.array().parse(supervisorJson);
const pipelineRun = RunEvent.array().parse(pipelineJson);

const INV = 'review#0';
const at = (s: number) => `2026-12-01T10:00:${String(s).padStart(2, '0')}.000Z`;

function judgment(over: Partial<JudgmentRecord> & Pick<JudgmentRecord, 'iteration'>): JudgmentRecord {
  return { id: `review:j0.${over.iteration}.0.1`, step: 0, attempt: 1, caller: { kind: 'human' }, evidence: [`o${over.iteration}`], verification: { ok: true }, started_at: at(0), ended_at: at(3), ...over };
}

/** A SUPERVISOR judged by a person: rejected with feedback, then approved; another node's events beside it. */
function judgedRun() {
  const log = eventLog('run-pattern-timeline-1');
  const iteration = (n: number, output: string, invocation = INV) => log.add({ type: 'pattern.iteration', invocation_id: invocation, step: 0, iteration: n, outputs: [{ id: `o${n}`, member_id: 'worker' }], output });
  iteration(1, 'Report v1');
  iteration(1, 'Something else', 'other#0');
  log.add({
    type: 'pattern.judgment',
    invocation_id: INV,
    judgment: judgment({ iteration: 1, verdict: { verdict: 'rejected', feedback: 'Add a timeline.', evidence: ['o1'], caller: { kind: 'human' } } }),
  });
  iteration(2, 'Report v2 with a timeline');
  return { log, iteration };
}

describe('the run view’s timeline of a pattern node', () => {
  it('shows each iteration with its output, its judgment (caller, verdict, feedback, evidence, timing) and the feedback the next one addresses', () => {
    const { log } = judgedRun();
    log.add({ type: 'pattern.judgment', invocation_id: INV, judgment: judgment({ iteration: 2, verdict: { verdict: 'approved', result: 'Report v2 with a timeline', evidence: ['o2'], caller: { kind: 'human', who: 'ana' } }, caller: { kind: 'human', who: 'ana' } }) });
    log.add({ type: 'pattern.ended', invocation_id: INV, status: 'approved', approved: true, iterations: 2 });
    const t = patternTimeline(log.events, INV);
    expect(t.iterations.map((i) => [i.iteration, i.output, i.outcome, i.addresses])).toEqual([
      [1, 'Report v1', 'rejected', undefined],
      [2, 'Report v2 with a timeline', 'approved', 'Add a timeline.'],
    ]);
    expect(t.iterations[0]?.judgments).toEqual([
      { id: 'review:j0.1.0.1', caller: 'a person', caller_kind: 'human', attempt: 1, verdict: 'rejected', feedback: 'Add a timeline.', evidence: ['o1'], started_at: at(0), ended_at: at(3) },
    ]);
    expect(t.iterations[1]?.judgments[0]).toMatchObject({ caller: 'a person (ana)', verdict: 'approved' });
    expect(t.ended).toEqual({ status: 'approved', approved: true, iterations: 2 });
    expect(judgmentTook(t.iterations[0]!.judgments[0]!)).toBe('3.0 s');
  });

  it('marks the iteration a person’s judgment waits on until it is answered', () => {
    const { log } = judgedRun();
    const asked = log.add({
      type: 'intervention.requested',
      invocation_id: INV,
      round: 0,
      intervention: {
        id: 'run-pattern-timeline-1:review#0:j0.2.0.1',
        run_id: 'run-pattern-timeline-1',
        round: 0,
        kind: 'pattern_judgment',
        reason: 'Judge iteration 2',
        reason_codes: [],
        options: ['approve', 'reject', 'escalate'],
        requested_at: at(5),
        judgment: { judgment_id: 'review:j0.2.0.1', node: 'review', pattern_type: 'SUPERVISOR', step: 0, steps: 1, iteration: 2, max_iterations: 3, output: 'Report v2 with a timeline', outputs: [{ id: 'o2', member_id: 'worker', text: 'Report v2 with a timeline' }], min_citations: 1, must_cite: [] },
      },
    });
    expect(patternTimeline(log.events, INV).iterations.map((i) => [i.iteration, i.waiting, i.outcome])).toEqual([
      [1, false, 'rejected'],
      [2, true, 'unjudged'],
    ]);
    log.add({ type: 'intervention.answered', invocation_id: INV, round: 0, intervention_id: asked.type === 'intervention.requested' ? asked.intervention.id : '', answer: { action: 'approve' } });
    expect(patternTimeline(log.events, INV).iterations[1]?.waiting).toBe(false);
  });

  it('a judgment that could not be used shows its problem and no verdict; an escalation ends as escalated', () => {
    const { log } = judgedRun();
    log.add({ type: 'pattern.judgment', invocation_id: INV, judgment: judgment({ iteration: 2, caller: { kind: 'llm', profile: 'default' }, evidence: [], verification: { ok: false, problem: 'the verdict was free text' } }) });
    log.add({ type: 'pattern.judgment', invocation_id: INV, judgment: judgment({ id: 'review:j0.2.0.2', iteration: 2, attempt: 2, caller: { kind: 'system' }, evidence: [], verdict: { verdict: 'escalated', reason: 'the human judgment expired unanswered', caller: { kind: 'system' } } }) });
    log.add({ type: 'pattern.ended', invocation_id: INV, status: 'escalated', approved: false, iterations: 2, reason: 'the human judgment expired unanswered' });
    const t = patternTimeline(log.events, INV);
    expect(t.iterations[1]?.judgments.map((j) => [j.caller, j.verdict, j.problem, j.reason])).toEqual([
      ['model “default”', undefined, 'the verdict was free text', undefined],
      ['the system', 'escalated', undefined, 'the human judgment expired unanswered'],
    ]);
    expect(t.iterations[1]?.outcome).toBe('escalated');
    expect(t.ended?.status).toBe('escalated');
  });

  it('puts each member’s own run under the iteration it worked in: its output, its rounds, whether a teacher supervised it (a recorded SUPERVISOR run)', () => {
    const t = patternTimeline(supervisorRun, 'summary');
    expect(t.iterations.map((it) => it.members.map((m) => [m.id, m.member_id, m.status, m.rounds, m.supervised]))).toEqual([
      [['worker#1', 'worker', 'completed', 1, true]],
      [['worker#2', 'worker', 'completed', 1, true]],
    ]);
    expect(t.iterations[0]?.members[0]?.output).toBe('The sync service was down for 40 minutes on Tuesday.');
    expect(t.iterations[1]?.members[0]?.output).toContain('Root cause: an expired TLS certificate');
    expect(t.unrecorded).toBeUndefined();
  });

  it('a PIPELINE’s later steps: each step’s member runs go to that step’s iterations (a recorded run)', () => {
    const invocation = pipelineRun.find((e) => e.type === 'pattern.iteration')?.invocation_id ?? '';
    const t = patternTimeline(pipelineRun, invocation);
    for (const it of t.iterations) {
      expect(it.members.length).toBeGreaterThan(0);
      // Every output the iteration names is a member run shown under it, with the text it answered.
      expect(it.members.map((m) => m.id)).toEqual(expect.arrayContaining(it.outputs.map((o) => o.id)));
      for (const m of it.members) expect(memberRunPlace(m.id)).toMatchObject({ step: it.step, iteration: it.iteration });
    }
  });

  it('members still at work (no pattern.iteration yet) are shown as the unrecorded iteration, live', () => {
    const cut = supervisorRun.filter((e) => e.seq < 30);
    const t = patternTimeline(cut, 'summary');
    expect(t.iterations.map((it) => it.iteration)).toEqual([1]);
    expect(t.unrecorded).toMatchObject({ step: 0, iteration: 2, members: [{ id: 'worker#2', status: 'working', supervised: true }] });
    expect(t.unrecorded?.members[0]?.rounds).toBeGreaterThan(0);
  });

  it('reads member run tags: draft#2 is step 0, iteration 2; review#2.1 is the second step, iteration 1', () => {
    expect(memberRunPlace('draft#2')).toEqual({ member_id: 'draft', step: 0, iteration: 2 });
    expect(memberRunPlace('review#2.1')).toEqual({ member_id: 'review', step: 1, iteration: 1 });
    expect(memberRunPlace('no-tag')).toBeUndefined();
  });

  it('a member waiting for a person’s answer shows as waiting until the answer, then working again', () => {
    const cut = supervisorRun.filter((e) => e.seq < 30);
    const log = eventLog(cut[0]?.run_id ?? 'run-pattern-timeline-2');
    for (const e of cut) log.add(e);
    const question = {
      id: 'question-1',
      run_id: log.events[0]?.run_id ?? '',
      round: 0,
      kind: 'ask_user' as const,
      reason: 'Which incident?',
      reason_codes: [],
      options: ['reply' as const],
      requested_at: at(1),
    };
    log.add({ type: 'intervention.requested', invocation_id: 'summary', pattern_member: 'worker#2', round: 0, intervention: question });
    expect(patternTimeline(log.events, 'summary').unrecorded?.members[0]?.status).toBe('waiting');
    log.add({ type: 'intervention.answered', invocation_id: 'summary', pattern_member: 'worker#2', round: 0, intervention_id: 'question-1', answer: { action: 'reply', text: 'Tuesday’s.' } });
    expect(patternTimeline(log.events, 'summary').unrecorded?.members[0]?.status).toBe('working');
  });
});
