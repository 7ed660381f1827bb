import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, toPromise, waitFor } from 'xstate';
import { patternMachine, type DispatchInput, type JudgeAnswer, type JudgeInput, type PatternEmitted, type PatternInput } from './machine';
import { PATTERN_PRESETS } from './presets';
import { AT, PIPELINE_MEMBERS, membersAnswer, patternInput } from './testing/fixtures';

/**
 * Behavioural claims of the pattern driver, each on a scripted scenario: the members and the model
 * judges are scripted (test doubles at the model boundary), a person is the HUMAN_ANSWERED event.
 */

type Judge = (i: JudgeInput) => unknown;

function scripted(judge: Judge, dispatch: (i: DispatchInput) => unknown = (i) => membersAnswer(i.step, i.iteration, i.members)) {
  const dispatches: DispatchInput[] = [];
  const judges: JudgeInput[] = [];
  const machine = patternMachine.provide({
    actors: {
      dispatch: fromPromise<unknown, DispatchInput>(async ({ input }) => {
        dispatches.push(input);
        return dispatch(input);
      }),
      judge: fromPromise<JudgeAnswer, JudgeInput>(async ({ input }) => {
        judges.push(input);
        return { answer: judge(input), ...AT };
      }),
    },
  });
  return { machine, dispatches, judges };
}

async function run(input: PatternInput, judge: Judge, dispatch?: (i: DispatchInput) => unknown) {
  const s = scripted(judge, dispatch);
  const events: PatternEmitted[] = [];
  const actor = createActor(s.machine, { input });
  actor.on('*', (e) => events.push(e));
  actor.start();
  const outcome = await toPromise(actor);
  return { ...s, outcome, events };
}

const cite = (i: JudgeInput): string[] => i.outputs.map((o) => o.id);
/** The judge's model profile (every judge in these tests is a model). */
const profileOf = (i: JudgeInput): string => (i.caller.kind === 'llm' ? i.caller.profile : i.caller.kind);

describe('the pattern driver', () => {
  it('a PIPELINE judge rejects the first draft for a missing section; the second iteration adds it, is approved, and the next step runs', async () => {
    const input = patternInput({ type: 'PIPELINE', members: PIPELINE_MEMBERS, max_iterations: 2, judgment: { callers: [{ kind: 'llm', profile: 'gate' }] } });
    const { outcome, dispatches, judges } = await run(
      input,
      (i) =>
        i.step === 0 && !i.output.includes('Risks')
          ? { verdict: 'rejected', feedback: 'Missing a Risks section.', evidence: cite(i) }
          : { verdict: 'approved', evidence: cite(i) },
      (i) => ({ ...membersAnswer(i.step, i.iteration, i.members), output: i.prompt.includes('Missing a Risks section.') ? 'Draft v2\nRisks: none known' : `Step ${i.step} v${i.iteration}` }),
    );
    expect(dispatches.map((d) => [d.step, d.iteration, d.members.map((m) => m.id).join()])).toEqual([
      [0, 1, 'draft'],
      [0, 2, 'draft'],
      [1, 1, 'final'],
    ]);
    expect(dispatches[1]?.prompt).toContain('Previous feedback (address this):\nMissing a Risks section.');
    expect(judges[1]?.prompt).toBe('Previous feedback (address this):\nMissing a Risks section.\nWork output:\nDraft v2\nRisks: none known\nIteration: 2');
    // The approved draft is the next step's input; the next step starts without the old feedback.
    expect(dispatches[2]?.prompt).toContain('Draft v2');
    expect(dispatches[2]?.prompt).not.toContain('Missing a Risks section.');
    expect(outcome).toMatchObject({ status: 'approved', approved: true, result: 'Step 1 v1', from: { step: 1, iteration: 1 }, iterations: 3 });
    expect(outcome.judgments.map((j) => j.verdict?.verdict)).toEqual(['rejected', 'approved', 'approved']);
  });

  it('a human judgment yields in a state the host can persist, and a restored driver resumes on the person’s answer', async () => {
    const input = patternInput({ judgment: { callers: [{ kind: 'human', expiry_seconds: 3600 }] } });
    const first = scripted(() => ({}));
    const before = createActor(first.machine, { input });
    const waiting: PatternEmitted[] = [];
    before.on('pattern.waiting', (e) => waiting.push(e));
    before.start();
    await waitFor(before, (s) => s.value === 'waiting');
    expect(waiting[0]).toMatchObject({ type: 'pattern.waiting', waiting: { iteration: 1, output: 'result of step 0 iteration 1', expiry_seconds: 3600 } });
    // The host stores the snapshot as JSON and stops (a restart); nothing was running.
    const stored = JSON.parse(JSON.stringify(before.getPersistedSnapshot())) as unknown;
    before.stop();

    const second = scripted(() => ({}));
    const after = createActor(second.machine, { input, snapshot: stored as never });
    after.start();
    expect(after.getSnapshot().value).toBe('waiting');
    after.send({ type: 'HUMAN_ANSWERED', who: 'ana', answer: { verdict: 'approved', evidence: ['o0.1.worker'] }, ...AT });
    const outcome = await toPromise(after);
    expect(outcome).toMatchObject({ status: 'approved', result: 'result of step 0 iteration 1' });
    expect(outcome.judgments[0]).toMatchObject({ caller: { kind: 'human', who: 'ana' }, evidence: ['o0.1.worker'], verification: { ok: true }, ...AT });
    expect(second.dispatches).toEqual([]);
  });

  it('an expired human judgment escalates by the system, or lets the fallback model judge in the person’s place', async () => {
    const noFallback = createActor(scripted(() => ({})).machine, { input: patternInput({ judgment: { callers: [{ kind: 'human' }] } }) }).start();
    await waitFor(noFallback, (s) => s.value === 'waiting');
    noFallback.send({ type: 'JUDGMENT_EXPIRED', at: AT.ended_at });
    expect(await toPromise(noFallback)).toMatchObject({ status: 'escalated', judgments: [{ caller: { kind: 'system' }, verdict: { verdict: 'escalated' } }] });

    const s = scripted((i) => ({ verdict: 'approved', evidence: cite(i) }));
    const withFallback = createActor(s.machine, { input: patternInput({ judgment: { callers: [{ kind: 'human', fallback: { kind: 'llm', profile: 'backup' } }] } }) }).start();
    await waitFor(withFallback, (x) => x.value === 'waiting');
    withFallback.send({ type: 'JUDGMENT_EXPIRED', at: AT.ended_at });
    const outcome = await toPromise(withFallback);
    expect(s.judges[0]).toMatchObject({ caller: { kind: 'llm', profile: 'backup' }, fallback_for_human: true });
    expect(outcome).toMatchObject({ status: 'approved', judgments: [{ caller: { kind: 'llm', profile: 'backup' } }] });
  });

  it('a verdict in free text is retried once with the problem, then escalates or fails as configured', async () => {
    for (const [policy, status] of [['retry_then_escalate', 'escalated'], ['retry_then_fail', 'failed']] as const) {
      const { outcome, judges } = await run(patternInput({ judgment: { on_verification_failure: policy } }), () => 'Approved, looks great.');
      expect(judges).toHaveLength(2);
      expect(judges[1]?.problem).toContain('free text');
      expect(outcome).toMatchObject({ status, approved: false });
      expect(outcome.result).toBeUndefined();
      expect(outcome.judgments.map((j) => j.verification.ok)).toEqual([false, false]);
    }
    const recovered = await run(patternInput(), (i) => (i.attempt === 1 ? 'approved!' : { verdict: 'approved', evidence: cite(i) }));
    expect(recovered.outcome.status).toBe('approved');
  });

  it('exhausted under best_unapproved, the output with the most approvals leaves, marked unapproved', async () => {
    const input = patternInput({ max_iterations: 2, on_exhaustion: 'best_unapproved', judgment: { callers: [{ kind: 'llm', profile: 'a' }, { kind: 'llm', profile: 'b' }] } });
    const { outcome } = await run(input, (i) =>
      i.iteration === 1 && profileOf(i) === 'a' ? { verdict: 'approved', evidence: cite(i) } : { verdict: 'rejected', feedback: `${profileOf(i)} wants more`, evidence: cite(i) },
    );
    expect(outcome).toMatchObject({ status: 'unapproved', approved: false, result: 'result of step 0 iteration 1', from: { step: 0, iteration: 1 }, iterations: 2 });
  });

  it('callers who disagree: under `all` one rejection sends its feedback back, under `any` one approval lets the output leave', async () => {
    const split = (i: JudgeInput) => (profileOf(i) === 'a' ? { verdict: 'approved', evidence: cite(i) } : { verdict: 'rejected', feedback: 'b: cite sources', evidence: cite(i) });
    const callers = [{ kind: 'llm' as const, profile: 'a' }, { kind: 'llm' as const, profile: 'b' }];
    const all = await run(patternInput({ judgment: { agreement: 'all', callers } }), split);
    expect(all.outcome.status).toBe('failed');
    expect(all.dispatches[1]?.prompt).toContain('b: cite sources');
    const any = await run(patternInput({ judgment: { agreement: 'any', callers } }), split);
    expect(any.outcome).toMatchObject({ status: 'approved', iterations: 1 });
  });

  it('a confident aggregate leaves unjudged under below_confidence; an unsure one is judged', async () => {
    const input = patternInput({ judgment: { trigger: { kind: 'below_confidence', threshold: 0.7 } } });
    const sure = await run(input, () => ({}), (i) => membersAnswer(i.step, i.iteration, i.members, 0.9));
    expect(sure.outcome).toMatchObject({ status: 'accepted', approved: false, judgments: [] });
    expect(sure.judges).toEqual([]);
    const unsure = await run(input, (i) => ({ verdict: 'approved', evidence: cite(i) }), (i) => membersAnswer(i.step, i.iteration, i.members, 0.4));
    expect(unsure.outcome.status).toBe('approved');
  });

  it('members who fail, or answer outside the contract, fail the node closed with the reason', async () => {
    const broken = await run(patternInput(), () => ({}), () => ({ outputs: [{ id: 'x', member_id: 'intruder', text: '' }], output: 'x' }));
    expect(broken.outcome).toMatchObject({ status: 'failed', reason: expect.stringContaining('intruder') });
    const down = await run(patternInput(), () => ({}), () => {
      throw new Error('model server unreachable');
    });
    expect(down.outcome).toMatchObject({ status: 'failed', reason: expect.stringContaining('unreachable') });
  });

  it('the DEBATE preset: the judge does not argue, judges as its member, and must cite both sides before its verdict counts', async () => {
    const input: PatternInput = { settings: PATTERN_PRESETS.DEBATE.settings, task: 'Should we ship on Friday?', id_prefix: 'debate' };
    const { outcome, dispatches, judges } = await run(input, (i) =>
      i.attempt === 1 ? { verdict: 'approved', evidence: [i.outputs[0]?.id ?? ''] } : { verdict: 'approved', evidence: cite(i) },
    );
    expect(dispatches[0]?.members.map((m) => m.id)).toEqual(['proponent', 'opponent']);
    expect(judges[0]?.caller).toEqual({ kind: 'llm', profile: 'default', as_member: 'judge' });
    expect(judges[1]?.problem).toContain('at least 2 member output(s)');
    expect(outcome).toMatchObject({ status: 'approved', judgments: [{ verification: { ok: false } }, { evidence: ['o0.1.proponent', 'o0.1.opponent'] }] });
  });
});
