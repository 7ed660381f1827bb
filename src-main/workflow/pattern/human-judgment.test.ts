import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, toPromise, type SnapshotFrom } from 'xstate';
import { presetPatternNode } from '@shared/workflow/pattern-preset-node';
import { PatternNode } from '@shared/workflow/document';
import { patternSettingsOf } from '@shared/workflow/document';
import { patternMachine, type DispatchInput, type JudgeAnswer, type JudgeInput, type PatternEmitted, type WaitingFor } from '@shared/pattern/machine';
import { checkJudgmentAnswer, judgmentIntervention, PatternPark, resumeEvent } from './human-judgment';

/**
 * The human caller parks the pattern's loop and resumes it at the judgment: the machine's snapshot
 * survives JSON (as in the workflow checkpoint) and a fresh actor — as after a host restart — goes
 * on from the waiting judgment with the person's answer or the expiry. Members and model judges are
 * scripted (test doubles at the model boundary).
 */

const NOW = new Date('2026-12-01T10:00:00.000Z');

function personJudged(fallback: { kind: 'escalate' } | { kind: 'llm'; profile: string } = { kind: 'escalate' }, expiry_seconds?: number) {
  const base = presetPatternNode('report', 'SUPERVISOR', { task: 'Write the incident report.' });
  return PatternNode.parse({
    ...base,
    judgment: { ...base.judgment, mode: 'post_step', callers: [{ kind: 'human', fallback, ...(expiry_seconds !== undefined ? { expiry_seconds } : {}) }], verifier: { min_citations: 1, must_cite: ['worker'] } },
  });
}

function machineFor(dispatches: DispatchInput[], judges: JudgeInput[] = []) {
  return patternMachine.provide({
    actors: {
      dispatch: fromPromise<unknown, DispatchInput>(async ({ input }) => {
        dispatches.push(input);
        // The scripted worker's second answer depends on the feedback in its prompt.
        const text = input.prompt.includes('Previous feedback (address this):\nAdd a timeline.') ? 'Report with a timeline' : `Report v${input.iteration}`;
        return { outputs: input.members.map((m) => ({ id: `report:o${input.step}.${input.iteration}.${m.id}`, member_id: m.id, text })), output: text };
      }),
      judge: fromPromise<JudgeAnswer, JudgeInput>(async ({ input }) => {
        judges.push(input);
        return { answer: { verdict: 'approved', evidence: input.outputs.map((o) => o.id) }, started_at: NOW.toISOString(), ended_at: NOW.toISOString() };
      }),
    },
  });
}

/** Runs the loop until it waits for the person; returns what the host would persist and show. */
async function parkedAt(node: PatternNode, snapshot?: PatternPark['snapshot'], resume?: Parameters<typeof resumeEvent>) {
  const dispatches: DispatchInput[] = [];
  const judges: JudgeInput[] = [];
  const emitted: PatternEmitted[] = [];
  const machine = machineFor(dispatches, judges);
  const actor = createActor(machine, snapshot ? { snapshot: snapshot as unknown as SnapshotFrom<typeof machine>, input: undefined as never } : { input: { settings: patternSettingsOf(node), task: node.task, id_prefix: node.id } });
  actor.on('*', (e) => emitted.push(e));
  actor.start();
  if (resume) actor.send(resumeEvent(...resume));
  await new Promise<void>((resolve) => {
    const check = () => (actor.getSnapshot().status !== 'active' || actor.getSnapshot().value === 'waiting' ? resolve() : setTimeout(check, 5));
    check();
  });
  const waiting = [...emitted].reverse().find((e): e is Extract<PatternEmitted, { type: 'pattern.waiting' }> => e.type === 'pattern.waiting')?.waiting;
  // The checkpoint holds JSON: the snapshot goes through it as it would on disk.
  const park = PatternPark.parse(JSON.parse(JSON.stringify({ snapshot: actor.getPersistedSnapshot() })));
  const done = actor.getSnapshot().status === 'done' ? await toPromise(actor) : undefined;
  actor.stop();
  return { actor, park, waiting, dispatches, judges, emitted, done, value: actor.getSnapshot().value };
}

const ask = (node: PatternNode, waiting: WaitingFor | undefined, previousFeedback?: string) => {
  if (!waiting) throw new Error('the loop did not wait for the person');
  return judgmentIntervention({ runId: 'run-human-judgment-1', invocationId: 'report#0', node, waiting, steps: 1, now: NOW, ...(previousFeedback ? { previousFeedback } : {}) });
};

describe('a person judging a pattern node', () => {
  it('the loop waits with nothing running; the intervention carries the outputs, the evidence to cite and the iteration', async () => {
    const node = personJudged();
    const first = await parkedAt(node);
    expect(first.value).toBe('waiting');
    const intervention = ask(node, first.waiting);
    expect(intervention).toMatchObject({
      id: 'run-human-judgment-1:report#0:report:j0.1.0.1',
      kind: 'pattern_judgment',
      options: ['approve', 'reject', 'escalate'],
      judgment: { node: 'report', pattern_type: 'SUPERVISOR', iteration: 1, max_iterations: 3, output: 'Report v1', outputs: [{ id: 'report:o0.1.supervisor', member_id: 'supervisor' }, { id: 'report:o0.1.worker', member_id: 'worker' }], must_cite: ['worker'] },
    });
    expect(intervention.judgment?.expires_at).toBeUndefined();
  });

  it('resumes at the judgment from the persisted snapshot (a fresh actor, as after a restart): a rejection’s feedback changes the next iteration, then an approval ends it approved', async () => {
    const node = personJudged();
    const first = await parkedAt(node);
    const q1 = ask(node, first.waiting);
    const later = new Date(NOW.getTime() + 90_000);
    const second = await parkedAt(node, first.park.snapshot, [q1, { action: 'reject', note: 'Add a timeline.' }, later, 'ana']);
    // Not from scratch: iteration 1 was dispatched before the park and is not dispatched again.
    expect(second.dispatches.map((d) => d.iteration)).toEqual([2]);
    expect(second.dispatches[0]?.prompt).toContain('Previous feedback (address this):\nAdd a timeline.');
    expect(second.value).toBe('waiting');
    const q2 = ask(node, second.waiting, 'Add a timeline.');
    expect(q2.judgment).toMatchObject({ iteration: 2, output: 'Report with a timeline', previous_feedback: 'Add a timeline.' });

    const third = await parkedAt(node, second.park.snapshot, [q2, { action: 'approve', evidence: ['report:o0.2.worker'] }, later]);
    expect(third.done).toMatchObject({ status: 'approved', approved: true, result: 'Report with a timeline', iterations: 2 });
    const records = third.done?.judgments ?? [];
    expect(records.map((r) => [r.iteration, r.caller, r.verdict?.verdict, r.evidence, r.verification.ok])).toEqual([
      [1, { kind: 'human', who: 'ana' }, 'rejected', ['report:o0.1.supervisor', 'report:o0.1.worker'], true],
      [2, { kind: 'human' }, 'approved', ['report:o0.2.worker'], true],
    ]);
    expect(records[0]).toMatchObject({ started_at: NOW.toISOString(), ended_at: later.toISOString() });
  });

  it('an escalation ends the loop escalated with the person’s reason', async () => {
    const node = personJudged();
    const first = await parkedAt(node);
    const end = await parkedAt(node, first.park.snapshot, [ask(node, first.waiting), { action: 'escalate', note: 'Legal must see this.' }, NOW]);
    expect(end.done).toMatchObject({ status: 'escalated', reason: 'Legal must see this.' });
  });

  it('at the expiry with no fallback model the system escalates in the person’s place', async () => {
    const node = personJudged({ kind: 'escalate' }, 600);
    const first = await parkedAt(node);
    const q = ask(node, first.waiting);
    expect(q.judgment).toMatchObject({ expires_at: '2026-12-01T10:10:00.000Z', fallback: { kind: 'escalate' } });
    const end = await parkedAt(node, first.park.snapshot, [q, { action: 'expired' }, new Date('2026-12-01T10:10:01.000Z')]);
    expect(end.done).toMatchObject({ status: 'escalated', reason: 'the human judgment expired unanswered' });
    expect(end.done?.judgments.at(-1)?.caller).toEqual({ kind: 'system' });
  });

  it('at the expiry with a fallback model, the model judges instead and is recorded as such', async () => {
    const node = personJudged({ kind: 'llm', profile: 'backup' }, 600);
    const first = await parkedAt(node);
    const end = await parkedAt(node, first.park.snapshot, [ask(node, first.waiting), { action: 'expired' }, new Date('2026-12-01T10:11:00.000Z')]);
    expect(end.judges).toHaveLength(1);
    expect(end.judges[0]).toMatchObject({ fallback_for_human: true, caller: { profile: 'backup' } });
    expect(end.done).toMatchObject({ status: 'approved' });
    expect(end.done?.judgments.at(-1)).toMatchObject({ id: 'report:j0.1.0.1f', caller: { kind: 'llm', profile: 'backup' } });
  });

  it('answers are checked before the run resumes: feedback for a rejection, evidence of this iteration, the expiry', async () => {
    const node = personJudged({ kind: 'escalate' }, 600);
    const first = await parkedAt(node);
    const q = ask(node, first.waiting);
    const judgment = q.judgment;
    if (!judgment) throw new Error('no judgment');
    expect(() => checkJudgmentAnswer(judgment, { action: 'reject' }, NOW.getTime())).toThrow(/needs its feedback/);
    expect(() => checkJudgmentAnswer(judgment, { action: 'approve', evidence: ['elsewhere'] }, NOW.getTime())).toThrow(/does not have: elsewhere/);
    expect(() => checkJudgmentAnswer(judgment, { action: 'expired' }, NOW.getTime())).toThrow(/has not expired/);
    expect(() => checkJudgmentAnswer(judgment, { action: 'approve' }, Date.parse('2026-12-01T10:20:00.000Z'))).toThrow(/expired at/);
    expect(() => checkJudgmentAnswer(judgment, { action: 'approve' }, NOW.getTime())).not.toThrow();
  });
});
