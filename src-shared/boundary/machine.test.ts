import { describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { boundaryMachine, type BoundaryEmitted } from './machine';
import { RunEvent } from '../contracts/events';
import { RoundRecord } from '../contracts/round';
import {
  boundaryInput,
  CONFIRM_TOOLS,
  PROPOSALS,
  REPLACEMENTS,
  VERDICTS,
  facts,
  jsonReply,
  replaceReply,
  textReply,
} from './testing/fixtures';
import { InMemoryHost } from './testing/in-memory-host';
import type { ClaimFacts } from './final-answer-check';
import { startScripted } from './testing/replay';

const types = (events: BoundaryEmitted[]): string[] => events.map((e) => e.type);
const mentions = (value: unknown, text: string): boolean => JSON.stringify(value).includes(text);

describe('the decision boundary', () => {
  it('a rejected candidate never reaches history', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.write], teacher: [replaceReply('write')], files: { 'notes.txt': 'original' } });
    const { record } = await host.runRound(boundaryInput());

    expect(record.outcome).toBe('executed');
    expect(host.history.map((h) => h.decision)).toEqual([REPLACEMENTS.write]);
    expect(host.files.get('notes.txt')).toBe('teacher fix');
    // The student's draft exists only in the trace (the round record), never in what the host was asked to do.
    expect(mentions(record.candidate, 'student draft')).toBe(true);
    expect(mentions([host.calls.commit, host.calls.execute, host.calls.deliver, host.history], 'student draft')).toBe(false);
  });

  it('a replacement that fails validation is never executed', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.write], teacher: [replaceReply('bad_args')] });
    const { record } = await host.runRound(boundaryInput({ supervision: { max_verdict_attempts: 1 } }));

    expect(record.outcome).toBe('blocked');
    expect(record.reason).toBe('verdict_unusable');
    expect(record.verdicts[0]?.replacement_validation?.issues).toEqual([
      { code: 'arguments_invalid', path: 'content', message: "must have required property 'content'" },
      { code: 'arguments_invalid', path: 'path', message: 'must be string' },
    ]);
    expect(host.calls.authorize).toEqual([]);
    expect(host.calls.commit).toEqual([]);
    expect(host.calls.execute).toEqual([]);
    expect(host.files.size).toBe(0);
  });

  it('after an invalid replacement, only the valid one that follows is executed', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.write], teacher: [replaceReply('unoffered'), replaceReply('write')] });
    const { record } = await host.runRound(boundaryInput({ supervision: { max_verdict_attempts: 2 } }));

    expect(record.outcome).toBe('executed');
    expect(host.calls.execute.map((c) => c.decision)).toEqual([REPLACEMENTS.write]);
    expect(host.calls.review[1]?.previous_problem).toMatch(/a tool not offered this round/);
  });

  it('a protected effect without review never executes', async () => {
    for (const supervision of [{ enabled: false }]) {
      const host = new InMemoryHost({ student: [PROPOSALS.write] });
      const { record } = await host.runRound(boundaryInput({ supervision }));

      expect(record.outcome).toBe('blocked');
      expect(record.reason).toBe('protected_unreviewed');
      expect(host.calls.review).toEqual([]);
      expect(host.calls.commit).toEqual([]);
      expect(host.calls.execute).toEqual([]);
      expect(host.files.has('notes.txt')).toBe(false);
    }
  });

  it('a protected effect is reviewed by default, and the accepted write executes', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.write], teacher: [VERDICTS.accept] });
    const { record } = await host.runRound(boundaryInput());

    expect(record.review).toEqual({ required: true, rule: 'protected_effect' });
    expect(record.outcome).toBe('executed');
    expect(host.files.get('notes.txt')).toBe('student draft');
  });

  it('a read the policy does not review executes without asking the teacher', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.read], files: { 'notes.txt': 'hello' } });
    const { record } = await host.runRound(boundaryInput());

    expect(record.review).toEqual({ required: false, rule: 'not_required' });
    expect(host.calls.review).toEqual([]);
    expect(record.execution?.content).toBe('hello');
  });

  it('two tool calls in one round are rejected', async () => {
    const parallelJson = jsonReply([
      { decision_type: 'tool_call', tool_name: 'read_file', arguments: { path: 'a.txt' } },
      { decision_type: 'tool_call', tool_name: 'read_file', arguments: { path: 'b.txt' } },
    ]);
    for (const reply of [PROPOSALS.parallel, parallelJson]) {
      const host = new InMemoryHost({ student: [reply], files: { 'a.txt': 'a', 'b.txt': 'b' } });
      const { record } = await host.runRound(boundaryInput({ supervision: { rules: { validation_failed: false } } }));

      expect(record.outcome).toBe('failed');
      expect(record.reason).toBe('invalid_candidate');
      expect(record.validation?.issues.map((i) => i.code)).toEqual(['parallel_tool_calls']);
      expect(host.calls.authorize).toEqual([]);
      expect(host.calls.execute).toEqual([]);
    }
  });

  it('a teacher replacement with two tool calls is rejected like a student one', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.write], teacher: [replaceReply('parallel')] });
    const { record } = await host.runRound(boundaryInput({ supervision: { max_verdict_attempts: 1 } }));

    expect(record.verdicts[0]?.replacement_validation?.issues.map((i) => i.code)).toEqual(['parallel_tool_calls']);
    expect(record.outcome).toBe('blocked');
    expect(host.calls.execute).toEqual([]);
  });

  it('the same idempotency key never executes twice', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.send_email, PROPOSALS.send_email], teacher: [VERDICTS.accept, VERDICTS.accept], confirm: 'granted' });
    const input = boundaryInput({ snapshot: CONFIRM_TOOLS });

    const first = await host.runRound(input);
    // The same round again (a retry, a resume or a replay of the run) proposes the same call.
    const second = await host.runRound(input);

    expect(first.record.outcome).toBe('executed');
    expect(second.record.outcome).toBe('blocked');
    expect(second.record.reason).toBe('duplicate_execution');
    expect(host.calls.execute).toHaveLength(1);
    expect(host.outbox).toEqual([{ to: 'boss@example.com', body: 'student email' }]);
    expect(host.history).toHaveLength(1);
  });

  it('a call interrupted mid-execution is never executed again', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.write, PROPOSALS.write], teacher: [VERDICTS.accept, VERDICTS.accept], crashTool: 'write_file' });
    const first = await host.runRound(boundaryInput());
    const retry = await host.runRound(boundaryInput());

    expect(first.record.outcome).toBe('failed');
    expect(first.record.reason).toBe('tool_error');
    expect([...host.ledger.values()]).toEqual(['in_flight']);
    expect(retry.record.outcome).toBe('blocked');
    expect(retry.record.reason).toBe('duplicate_execution');
    expect(host.calls.execute).toHaveLength(1);
  });

  it('the same call in a later round has its own key and executes', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.read, PROPOSALS.read], files: { 'notes.txt': 'n' } });
    await host.runRound(boundaryInput({ round: 1 }));
    const { record } = await host.runRound(boundaryInput({ round: 2 }));

    expect(record.outcome).toBe('executed');
    expect(new Set(host.calls.execute.map((c) => c.idempotency_key)).size).toBe(2);
  });

  it.each([1, 2, 3])('a malformed verdict is re-asked up to max_verdict_attempts (%i), then the round is blocked', async (max) => {
    const host = new InMemoryHost({ student: [PROPOSALS.write], teacher: Array.from({ length: 5 }, () => VERDICTS.malformed) });
    const { record, events } = await host.runRound(boundaryInput({ supervision: { max_verdict_attempts: max } }));

    expect(host.calls.review.map((c) => c.attempt)).toEqual(Array.from({ length: max }, (_, i) => i + 1));
    expect(host.calls.review[0]?.previous_problem).toBeUndefined();
    for (const call of host.calls.review.slice(1)) expect(call.previous_problem).toMatch(/^malformed verdict: the model (answered in prose|'s JSON is malformed)/);
    expect(events.filter((e) => e.type === 'verdict.received')).toHaveLength(max);
    expect(record.outcome).toBe('blocked');
    expect(record.reason).toBe('verdict_unusable');
    expect(record.message).toContain(`after ${max} attempt(s)`);
    expect(host.calls.commit).toEqual([]);
  });

  it('a usable verdict after a malformed one decides the round', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.write], teacher: [VERDICTS.malformed, VERDICTS.accept] });
    const { record } = await host.runRound(boundaryInput({ supervision: { max_verdict_attempts: 2 } }));

    expect(record.verdicts.map((v) => v.usable)).toEqual([false, true]);
    expect(record.outcome).toBe('executed');
  });

  it('a failing teacher counts as an unusable verdict and is re-asked', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.write], teacher: [new Error('teacher timed out'), VERDICTS.block] });
    const { record } = await host.runRound(boundaryInput({ supervision: { max_verdict_attempts: 2 } }));

    expect(record.verdicts[0]).toMatchObject({ usable: false, problem: 'the teacher model failed: teacher timed out' });
    expect(record.outcome).toBe('blocked');
    expect(record.reason).toBe('verdict_block');
  });

  it('accepting an invalid candidate is not possible', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.write_bad_args], teacher: [VERDICTS.accept] });
    const { record } = await host.runRound(boundaryInput({ supervision: { max_verdict_attempts: 1 } }));

    expect(record.review).toEqual({ required: true, rule: 'validation_failed' });
    expect(record.verdicts[0]).toMatchObject({ usable: false });
    expect(record.verdicts[0]?.problem).toMatch(/^accept is impossible/);
    expect(record.outcome).toBe('blocked');
    expect(record.selected).toBeUndefined();
    expect(host.calls.execute).toEqual([]);
  });

  it('an invalid candidate the teacher repairs is replaced, never executed as proposed', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.unparseable], teacher: [replaceReply('read')], files: { 'teacher-choice.txt': 't' } });
    const { record } = await host.runRound(boundaryInput());

    expect(record.outcome).toBe('executed');
    expect(record.selected).toEqual({ source: 'teacher', decision: REPLACEMENTS.read });
  });

  it('an invalid candidate that policy does not send for review fails the round', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.unoffered] });
    const { record } = await host.runRound(boundaryInput({ supervision: { rules: { validation_failed: false } } }));

    expect(record.review).toEqual({ required: false, rule: 'invalid_not_reviewed' });
    expect(record.outcome).toBe('failed');
    expect(record.message).toMatch(/a tool not offered this round/);
  });

  it.each(['proposing', 'reviewing', 'authorizing'] as const)('cancelling before commit (while %s) ends the round failed without executing', async (state) => {
    const { actor, effects } = startScripted(boundaryMachine, boundaryInput());
    const answers = { propose: PROPOSALS.write, review: VERDICTS.accept } as const;
    for (const [effect, output] of Object.entries(answers) as [keyof typeof answers, unknown][]) {
      const pending = await effects.take(effect);
      if (actor.getSnapshot().value === state) break;
      effects.settle(pending, { type: `xstate.done.actor.${effect}`, output });
    }
    if (state === 'authorizing') await effects.take('authorize');
    expect(actor.getSnapshot().value).toBe(state);

    actor.send({ type: 'CANCEL' });
    const record = await toPromise(actor);

    expect(record.outcome).toBe('failed');
    expect(record.reason).toBe('cancelled');
    expect(effects.calls('commit')).toEqual([]);
    expect(effects.calls('execute')).toEqual([]);
    expect(effects.journal.filter((e) => e.kind === 'event' && e.event.type === 'round.completed')).toHaveLength(1);
  });

  it('a cancel after commit cannot leave the committed decision half done', async () => {
    const { actor, effects } = startScripted(boundaryMachine, boundaryInput());
    effects.settle(await effects.take('propose'), { type: 'xstate.done.actor.propose', output: PROPOSALS.read });
    effects.settle(await effects.take('authorize'), { type: 'xstate.done.actor.authorize', output: facts('new', 'not_needed') });
    const commit = await effects.take('commit');
    actor.send({ type: 'CANCEL' });
    effects.settle(commit, { type: 'xstate.done.actor.commit', output: { history_index: 0 } });
    const execute = await effects.take('execute');
    effects.settle(execute, {
      type: 'xstate.done.actor.execute',
      output: { server: 'fs', tool: 'read_file', arguments: { path: 'notes.txt' }, idempotency_key: execute.call.input.idempotency_key, ok: true, is_error: false, content: 'x', duration_ms: 0 },
    });

    const record = await toPromise(actor);
    expect(record.outcome).toBe('executed');
    expect(record.history_index).toBe(0);
  });

  it('a tool error after commit is recorded as failed with the committed decision', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.write], teacher: [VERDICTS.accept], crashTool: 'write_file' });
    const { record, events } = await host.runRound(boundaryInput());

    expect(record.outcome).toBe('failed');
    expect(record.reason).toBe('tool_error');
    expect(record.message).toMatch(/server exited during write_file/);
    expect(record.history_index).toBe(0);
    expect(record.selected?.decision).toEqual(host.history[0]?.decision);
    expect(types(events)).toContain('decision.committed');
    expect(types(events)).not.toContain('tool.executed');
  });

  it('a tool that reports an error still counts as executed, with the error recorded', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.read] });
    const { record } = await host.runRound(boundaryInput());

    expect(record.outcome).toBe('executed');
    expect(record.execution).toMatchObject({ ok: true, is_error: true, content: 'no such file: notes.txt' });
    expect(host.history[0]).toMatchObject({ result_is_error: true });
  });

  it('a failing commit never executes or delivers', async () => {
    const { actor, effects } = startScripted(boundaryMachine, boundaryInput());
    effects.settle(await effects.take('propose'), { type: 'xstate.done.actor.propose', output: PROPOSALS.complete });
    effects.settle(await effects.take('authorize'), { type: 'xstate.done.actor.authorize', output: facts('new', 'not_needed', undefined) });
    effects.settle(await effects.take('commit'), { type: 'xstate.error.actor.commit', error: new Error('disk full') });
    const record = await toPromise(actor);

    expect(record).toMatchObject({ outcome: 'failed', reason: 'commit_error' });
    expect(effects.calls('deliver')).toEqual([]);
    expect(effects.calls('execute')).toEqual([]);
  });

  it.each([
    ['denied', 'confirmation_denied'],
    ['unavailable', 'confirmation_unavailable'],
  ] as const)('a tool that requires user confirmation never executes when the user answer is %s', async (confirm, reason) => {
    for (const proposal of [PROPOSALS.send_email, PROPOSALS.open_vault]) {
      const host = new InMemoryHost({ student: [proposal], teacher: [VERDICTS.accept], confirm });
      const { record } = await host.runRound(boundaryInput({ snapshot: CONFIRM_TOOLS }));

      expect(record.outcome).toBe('blocked');
      expect(record.reason).toBe(reason);
      expect(host.calls.execute).toEqual([]);
      expect(host.outbox).toEqual([]);
    }
  });

  it('a tool that requires user confirmation executes once the user grants it', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.open_vault], confirm: 'granted' });
    const { record } = await host.runRound(boundaryInput({ snapshot: CONFIRM_TOOLS }));

    // open_vault is a read: the teacher is not asked, the user is.
    expect(host.calls.review).toEqual([]);
    expect(record.outcome).toBe('executed');
  });

  it('a block verdict ends the round blocked with nothing committed', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.write], teacher: [VERDICTS.block] });
    const { record, events } = await host.runRound(boundaryInput());

    expect(record).toMatchObject({ outcome: 'blocked', reason: 'verdict_block', message: 'This would overwrite the user notes.' });
    expect(record.selected).toBeUndefined();
    expect(host.calls.authorize).toEqual([]);
    expect(types(events)).toEqual(['round.started', 'candidate.proposed', 'candidate.validated', 'review.decided', 'verdict.received', 'round.completed']);
  });

  it('an escalate verdict ends the round escalated with nothing committed', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.write], teacher: [VERDICTS.escalate] });
    const { record } = await host.runRound(boundaryInput());

    expect(record).toMatchObject({ outcome: 'escalated', reason: 'verdict_escalate' });
    expect(host.calls.commit).toEqual([]);
  });

  it("the teacher's own proposal skips review but not validation", async () => {
    const ok = new InMemoryHost({ teacher: [PROPOSALS.write] });
    const done = await ok.runRound(boundaryInput({ proposer: 'teacher' }));
    expect(done.record).toMatchObject({ outcome: 'executed', review: { required: false, rule: 'teacher_proposed' }, selected: { source: 'teacher' } });
    expect(ok.calls.review).toEqual([]);

    const bad = new InMemoryHost({ teacher: [PROPOSALS.write_bad_args] });
    const failed = await bad.runRound(boundaryInput({ proposer: 'teacher' }));
    expect(failed.record).toMatchObject({ outcome: 'failed', reason: 'invalid_candidate' });
    expect(bad.calls.execute).toEqual([]);
  });

  it('a control response is delivered, never executed', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.complete] });
    const { record, events } = await host.runRound(boundaryInput());

    expect(record.outcome).toBe('delivered');
    expect(host.delivered).toEqual([{ decision_type: 'complete', output: 'all done' }]);
    expect(host.calls.execute).toEqual([]);
    expect(types(events)).toEqual([
      'round.started',
      'candidate.proposed',
      'candidate.validated',
      'review.decided',
      'decision.selected',
      'decision.authorized',
      'decision.committed',
      'response.delivered',
      'round.completed',
    ]);
  });

  it("a phase plan's allowed tools bind the teacher's replacement as they bind the student", async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.read], teacher: [replaceReply('write')] });
    const { record } = await host.runRound(
      boundaryInput({ constraints: { allowed_tools: ['read_file'] }, supervision: { phase: 2, max_verdict_attempts: 1 } }),
    );

    expect(record.verdicts[0]?.replacement_validation?.issues.map((i) => i.code)).toEqual(['phase_constraint']);
    expect(record.outcome).toBe('blocked');
    expect(host.calls.execute).toEqual([]);
  });

  it('a failing model fails the round with a typed reason', async () => {
    const host = new InMemoryHost({ student: [new Error('connection refused')] });
    const { record, events } = await host.runRound(boundaryInput());

    expect(record).toMatchObject({ outcome: 'failed', reason: 'student_error', message: 'the student model failed: connection refused' });
    expect(types(events)).toEqual(['round.started', 'round.completed']);
  });

  it('an effect the host did not provide fails the round closed', async () => {
    const actor = createActor(boundaryMachine, { input: boundaryInput() });
    actor.start();
    const record = await toPromise(actor);

    expect(record).toMatchObject({ outcome: 'failed', reason: 'student_error' });
    expect(record.message).toContain('no propose actor provided');
  });

  it('every emitted event satisfies its contract and the round.completed record is the output', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.write], teacher: [textReply('```json\n{"verdict":"accept","reason_codes":[],"explanation":"ok"}\n```')] });
    const { record, events } = await host.runRound(boundaryInput());

    expect(record.outcome).toBe('executed');
    expect(RoundRecord.parse(record)).toEqual(record);
    events.forEach((e, seq) => {
      expect(() => RunEvent.parse({ ...e, id: `run-0001:${seq}`, run_id: 'run-0001', seq, ts: '2026-01-01T00:00:00Z' })).not.toThrow();
    });
    const completed = events.filter((e) => e.type === 'round.completed');
    expect(completed).toHaveLength(1);
    expect(completed[0]?.type === 'round.completed' && completed[0].record).toEqual(record);
  });

  it('the teacher sees the candidate, its validation and the rule that sent it for review', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.write_bad_args], teacher: [replaceReply('write')] });
    await host.runRound(boundaryInput());

    expect(host.calls.review[0]).toMatchObject({
      reply: PROPOSALS.write_bad_args,
      review: { required: true, rule: 'validation_failed' },
      validation: { ok: false },
      attempt: 1,
    });
  });

  it('a student repairs its invalid decision within the round, told what was wrong, before any review', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.unparseable, PROPOSALS.read] });
    const { record, events } = await host.runRound(boundaryInput({ supervision: { max_repair_rounds: 1 } }));

    expect(record.outcome).toBe('executed');
    expect(record.repairs).toHaveLength(1);
    expect(record.repairs[0]?.validation.issues[0]?.code).toBe('unparseable');
    expect(record.review).toEqual({ required: false, rule: 'not_required' });
    expect(host.calls.review).toEqual([]);
    expect(host.calls.propose[1]?.feedback).toMatch(/rejected by validation: not a decision/);
    expect(types(events).slice(0, 6)).toEqual(['round.started', 'candidate.proposed', 'candidate.validated', 'candidate.proposed', 'candidate.validated', 'review.decided']);
  });

  it('repairs are bounded: a candidate still invalid after them goes to the teacher', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.unparseable, PROPOSALS.unparseable], teacher: [replaceReply('read')] });
    const { record } = await host.runRound(boundaryInput({ supervision: { max_repair_rounds: 1 } }));

    expect(host.calls.propose).toHaveLength(2);
    expect(record.review).toEqual({ required: true, rule: 'validation_failed' });
    expect(record.selected?.source).toBe('teacher');
    expect(record.outcome).toBe('executed');
  });

  it('a round drawn by the sampler is reviewed even when no other rule fires', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.read], teacher: [VERDICTS.accept] });
    const { record } = await host.runRound(boundaryInput({ sampled: true }));
    expect(record.review).toEqual({ required: true, rule: 'sampled' });
    expect(record.verdict?.verdict).toBe('accept');
    expect(record.outcome).toBe('executed');
  });

  it('a tool needing confirmation, with the answer pending, ends the round blocked and unexecuted until the person answers', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.send_email], teacher: [VERDICTS.accept], confirm: 'pending' });
    const { record } = await host.runRound(boundaryInput({ snapshot: CONFIRM_TOOLS }));
    expect(record.outcome).toBe('blocked');
    expect(record.reason).toBe('confirmation_pending');
    expect(host.calls.commit).toEqual([]);
    expect(host.calls.execute).toEqual([]);
  });

  it('a decision a person approved skips the models, not validation, authorization or commit', async () => {
    const host = new InMemoryHost({ student: [], teacher: [] });
    const { record, events } = await host.runRound(
      boundaryInput({ snapshot: CONFIRM_TOOLS, preselected: { decision: REPLACEMENTS.send_email, intervention_id: 'iv-test-0001', confirmed: true } }),
    );
    expect(record.outcome).toBe('executed');
    expect(record.review).toEqual({ required: false, rule: 'human_decided' });
    expect(record.selected).toEqual({ source: 'human', decision: REPLACEMENTS.send_email });
    expect(record.intervention_id).toBe('iv-test-0001');
    expect(host.calls.propose).toEqual([]);
    expect(host.calls.review).toEqual([]);
    expect(host.calls.authorize).toHaveLength(1);
    expect(types(events)).not.toContain('candidate.proposed');
  });

  it('an approved decision that no longer validates (the tool is gone) fails the round instead of running', async () => {
    const host = new InMemoryHost({});
    const { record } = await host.runRound(
      boundaryInput({ preselected: { decision: { decision_type: 'tool_call', tool_name: 'vanished', arguments: {} }, intervention_id: 'iv-test-0002', confirmed: false } }),
    );
    expect(record.outcome).toBe('failed');
    expect(record.reason).toBe('approved_decision_invalid');
    expect(host.calls.execute).toEqual([]);
  });

  it('a final answer after a refused call goes to the teacher in every phase, with what was refused and what ran', async () => {
    const claims: ClaimFacts = {
      refused: [{ round: 0, how: 'rejected_by_person', decision: 'write_file {"path":"shared.md"}', tool: 'write_file', key: 'write_file#1' }],
      executed: [{ round: 1, tool: 'read_file', arguments: '{"path":"notes.txt"}', key: 'read_file#2', ok: true }],
    };
    for (const phase of [3, 4] as const) {
      const host = new InMemoryHost({ student: [PROPOSALS.complete], teacher: [VERDICTS.block] });
      const { record } = await host.runRound(boundaryInput({ claims, supervision: { phase } }));
      expect(record.review).toEqual({ required: true, rule: 'after_refusal' });
      expect(host.calls.review[0]?.claims).toEqual(claims);
      expect(record.outcome).toBe('blocked');
      expect(host.delivered).toEqual([]);
    }
  });

  it('without a refusal, a final answer is routed by the usual rules, and its reviewer gets no refusal facts', async () => {
    const host = new InMemoryHost({ student: [PROPOSALS.complete] });
    const { record } = await host.runRound(boundaryInput({ claims: { refused: [], executed: [] }, supervision: { phase: 4 } }));
    expect(record.review).toEqual({ required: false, rule: 'not_required' });
    expect(record.outcome).toBe('delivered');

    const approved = new InMemoryHost({ student: [PROPOSALS.complete] });
    const onlyApproved: ClaimFacts = { refused: [{ round: 0, how: 'approved_by_person', decision: 'write_file {}', tool: 'write_file', key: 'k' }], executed: [] };
    expect((await approved.runRound(boundaryInput({ claims: onlyApproved, supervision: { phase: 4 } }))).record.review?.rule).toBe('not_required');
  });
});
