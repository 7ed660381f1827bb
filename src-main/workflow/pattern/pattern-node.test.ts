import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, type RunEventOf } from '@shared/contracts/events';
import { FEEDBACK_HEADING } from '@shared/pattern/prompt';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { WorkflowGraph } from '@shared/workflow/document';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { createMemoryLedger } from '../../mcp/idempotency-ledger';
import { runWorkflow, type RunWorkflowOptions } from '../run-workflow';
import { WorkflowCheckpoint } from '../workflow-checkpoint';
import { NO_PERSON, runPatternNode, type JudgeHuman, type PatternNodeDeps } from './pattern-node';

/**
 * The pattern node through the real executor and workflow run: members run as agents on replay
 * scripts and judges answer from the node's judge_script — the scripted provider is the only
 * double, at the model boundary.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const complete = (output: string) => ({ json: { decision_type: 'complete', output } });
const approve = (...evidence: string[]) => ({ json: { verdict: 'approved', evidence } });
const reject = (feedback: string, ...evidence: string[]) => ({ json: { verdict: 'rejected', feedback, evidence } });
const escalate = (reason: string) => ({ json: { verdict: 'escalated', reason } });

/** One drafter judged after the pattern (post_step: two levels are not needed here, one caller judges). */
function graph(node: Record<string, unknown>, drafts: string[], judge: unknown[], extra: Record<string, unknown> = {}): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'judged',
    name: 'Judged',
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'topic', type: 'text' }] },
      {
        id: 'p',
        kind: 'pattern',
        type: 'SUPERVISOR',
        task: 'Write a short design note about {{topic}}.',
        inputs: [{ name: 'topic', type: 'text' }],
        members: [{ id: 'draft', role: 'writer', instructions: 'Write the note.', script: { student: drafts.map(complete) } }],
        max_iterations: 3,
        judgment: { mode: 'post_step', callers: [{ kind: 'llm', profile: 'judge' }], verifier: { must_cite: ['draft'] } },
        judge_models: { judge: { provider: 'script' } },
        judge_script: { teacher: judge },
        ...node,
      },
      { id: 'out', kind: 'output', fields: [{ name: 'note', type: 'text' }, { name: 'approved', type: 'boolean' }, { name: 'iterations', type: 'number' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'topic' }, to: { node: 'p', port: 'topic' } },
      { from: { node: 'p', port: 'output' }, to: { node: 'out', port: 'note' } },
      { from: { node: 'p', port: 'approved' }, to: { node: 'out', port: 'approved' } },
      { from: { node: 'p', port: 'iterations' }, to: { node: 'out', port: 'iterations' } },
    ],
    ...extra,
  });
}

async function run(g: WorkflowGraph, extra: Partial<RunWorkflowOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'steward-pattern-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const events: RunEvent[] = [];
  const result = await runWorkflow({ graph: g, specDir: dir, inputs: { topic: 'caching' }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), ...extra });
  for (const e of events) expect(RunEvent.safeParse(e).success, e.type).toBe(true);
  const of = <T extends RunEvent['type']>(type: T) => events.filter((e): e is RunEventOf<T> => e.type === type);
  return { result, events, of, judgments: of('pattern.judgment').map((e) => e.judgment) };
}

/** The executor alone, with the deps a host gives it (how a person's judgment is had). */
async function direct(g: WorkflowGraph, deps: Partial<PatternNodeDeps>) {
  const dir = mkdtempSync(join(tmpdir(), 'steward-pattern-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const node = g.nodes.find((n) => n.kind === 'pattern');
  if (node?.kind !== 'pattern') throw new Error('no pattern node');
  const events: unknown[] = [];
  const outcome = await runPatternNode(
    node,
    { invocation: { id: 'p', node: 'p', lineage: [], inputs: { topic: 'caching' } }, emit: (e) => events.push(e), signal: new AbortController().signal },
    { runId: 'r1', graph: g, specDir: dir, ledger: createMemoryLedger(), ...deps },
  );
  return { outcome, events };
}

describe('pattern node: the judgment loop through the real executor', () => {
  it('an approved first output leaves the node approved after one iteration, every event under the node invocation', async () => {
    const { result, of, judgments } = await run(graph({}, ['Cache reads; invalidate on write.'], [approve('draft#1')]));
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ note: 'Cache reads; invalidate on write.', approved: true, iterations: 1 });
    expect(of('pattern.iteration')).toEqual([expect.objectContaining({ invocation_id: 'p', step: 0, iteration: 1, outputs: [{ id: 'draft#1', member_id: 'draft' }] })]);
    expect(judgments).toEqual([
      expect.objectContaining({ id: 'p:j0.1.0.1', caller: { kind: 'llm', profile: 'judge' }, verdict: expect.objectContaining({ verdict: 'approved' }), evidence: ['draft#1'], verification: { ok: true } }),
    ]);
    expect(of('pattern.judgment')[0]?.invocation_id).toBe('p');
    // The member ran as an agent, nested under the node and tagged with its run.
    expect(of('agent.started')).toEqual([expect.objectContaining({ invocation_id: 'p', pattern_member: 'draft#1' })]);
    expect(of('pattern.ended')).toEqual([expect.objectContaining({ status: 'approved', approved: true, iterations: 1 })]);
  });

  it('a rejection is feedback: the next member prompt carries it, the second output is approved, and the pair is learning data', async () => {
    const { result, of, judgments } = await run(
      graph({}, ['Cache reads.', 'Cache reads.\n## Risks\nStale data.'], [reject('Missing a Risks section.', 'draft#1'), approve('draft#2')]),
    );
    expect(result.outputs).toEqual({ note: 'Cache reads.\n## Risks\nStale data.', approved: true, iterations: 2 });
    const second = of('agent.started').find((e) => e.pattern_member === 'draft#2');
    expect(second?.task).toContain(`${FEEDBACK_HEADING}\nMissing a Risks section.`);
    expect(second?.task).toContain('Previous output:\nCache reads.');
    expect(second?.task).toContain('Iteration: 2');
    expect(judgments.map((j) => j.verdict?.verdict)).toEqual(['rejected', 'approved']);
    expect(of('pattern.preference')).toEqual([
      expect.objectContaining({ invocation_id: 'p', rejected: 'Cache reads.', feedback: 'Missing a Risks section.', chosen: 'Cache reads.\n## Risks\nStale data.', judgments: { rejected: 'p:j0.1.0.1', approved: 'p:j0.2.0.1' } }),
    ]);
  });

  it('exhausted under fail: the node fails and nothing rejected leaves it', async () => {
    const { result, of } = await run(graph({ max_iterations: 2, on_exhaustion: 'fail' }, ['a', 'b'], [reject('no', 'draft#1'), reject('still no', 'draft#2')]));
    expect(result.status).toBe('failed');
    expect(result.outputs).toEqual({});
    expect(result.invocations.find((i) => i.id === 'p')?.failure).toEqual({ code: 'pattern_failed', message: 'no output was approved in 2 iteration(s)' });
    expect(of('pattern.iteration')).toHaveLength(2);
  });

  it('exhausted under escalate: the node ends escalated', async () => {
    const { result } = await run(graph({ max_iterations: 2, on_exhaustion: 'escalate' }, ['a', 'b'], [reject('no', 'draft#1'), reject('still no', 'draft#2')]));
    expect(result.invocations.find((i) => i.id === 'p')?.failure).toEqual({ code: 'pattern_escalated', message: 'no output was approved in 2 iteration(s)' });
  });

  it('exhausted under best_unapproved: the best output leaves, marked unapproved', async () => {
    const { result, of } = await run(graph({ max_iterations: 2, on_exhaustion: 'best_unapproved' }, ['a', 'b'], [reject('no', 'draft#1'), reject('still no', 'draft#2')]));
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ note: 'b', approved: false, iterations: 2 });
    expect(of('pattern.ended')[0]).toMatchObject({ status: 'unapproved', approved: false });
  });

  it('a judge that escalates ends the loop at once: no further iteration', async () => {
    const { result, of } = await run(graph({}, ['a', 'b'], [escalate('Legal must look at this.')]));
    expect(result.invocations.find((i) => i.id === 'p')?.failure).toEqual({ code: 'pattern_escalated', message: 'Legal must look at this.' });
    expect(of('pattern.iteration')).toHaveLength(1);
  });

  it('a verdict in free text fails verification and the judge is asked again with the problem; the retried verdict counts', async () => {
    const { result, judgments } = await run(graph({}, ['a'], [{ text: 'Looks good to me, approved.' }, approve('draft#1')]));
    expect(result.outputs).toEqual({ note: 'a', approved: true, iterations: 1 });
    expect(judgments.map((j) => [j.attempt, j.verification.ok])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(judgments[0]?.verification).toMatchObject({ problem: expect.stringContaining('free text') });
  });

  it('a verdict citing no output of this iteration fails twice: escalated under retry_then_escalate, failed under retry_then_fail', async () => {
    const uncited = [approve('ghost#1'), approve()];
    const escalated = await run(graph({}, ['a'], uncited));
    expect(escalated.result.invocations.find((i) => i.id === 'p')?.failure?.code).toBe('pattern_escalated');
    expect(escalated.judgments.every((j) => !j.verification.ok)).toBe(true);
    const judgment = { mode: 'post_step', callers: [{ kind: 'llm', profile: 'judge' }], on_verification_failure: 'retry_then_fail' };
    const failedRun = await run(graph({ judgment }, ['a'], uncited));
    expect(failedRun.result.invocations.find((i) => i.id === 'p')?.failure).toMatchObject({ code: 'pattern_failed', message: expect.stringContaining('could not be verified') });
  });

  it('two callers who disagree: under `all` the output is rejected with the dissent as feedback; under `any` it is approved', async () => {
    const callers = [{ kind: 'llm', profile: 'strict' }, { kind: 'llm', profile: 'lenient' }];
    const models = { strict: { provider: 'script' }, lenient: { provider: 'script' } };
    const all = await run(
      graph({ judgment: { mode: 'post_step', callers, agreement: 'all' }, judge_models: models }, ['a', 'a+tests'], [reject('Add tests.', 'draft#1'), approve('draft#1'), approve('draft#2'), approve('draft#2')]),
    );
    expect(all.result.outputs).toEqual({ note: 'a+tests', approved: true, iterations: 2 });
    expect(all.judgments.map((j) => [j.caller, j.verdict?.verdict])).toEqual([
      [{ kind: 'llm', profile: 'strict' }, 'rejected'],
      [{ kind: 'llm', profile: 'lenient' }, 'approved'],
      [{ kind: 'llm', profile: 'strict' }, 'approved'],
      [{ kind: 'llm', profile: 'lenient' }, 'approved'],
    ]);
    expect(all.of('agent.started').find((e) => e.pattern_member === 'draft#2')?.task).toContain('Add tests.');
    const any = await run(graph({ judgment: { mode: 'post_step', callers, agreement: 'any' }, judge_models: models }, ['a'], [reject('Add tests.', 'draft#1'), approve('draft#1')]));
    expect(any.result.outputs).toEqual({ note: 'a', approved: true, iterations: 1 });
  });

  it('below_confidence: a member answer stated above the threshold leaves unjudged (accepted, not approved); one below it is judged', async () => {
    const sure = { id: 'draft', role: 'writer', instructions: 'Write.', script: { student: [{ json: { decision_type: 'complete', output: 'Sure note.', confidence: 0.95 } }] } };
    const unsure = { id: 'draft', role: 'writer', instructions: 'Write.', script: { student: [{ json: { decision_type: 'complete', output: 'Unsure note.', confidence: 0.4 } }] } };
    const trigger = { kind: 'below_confidence', threshold: 0.8 };
    const judgment = { mode: 'post_step', trigger, callers: [{ kind: 'llm', profile: 'judge' }], verifier: { must_cite: ['draft'] } };
    const confident = await run(graph({ members: [sure], judgment }, [], [approve('draft#1')]));
    expect(confident.result.outputs).toEqual({ note: 'Sure note.', approved: false, iterations: 1 });
    expect(confident.judgments).toEqual([]);
    expect(confident.of('pattern.ended')).toEqual([expect.objectContaining({ status: 'accepted', approved: false })]);
    const doubtful = await run(graph({ members: [unsure], judgment }, [], [approve('draft#1')]));
    expect(doubtful.result.outputs).toEqual({ note: 'Unsure note.', approved: true, iterations: 1 });
    expect(doubtful.judgments.map((j) => j.verdict?.verdict)).toEqual(['approved']);
  });

  it('a human caller with no way to ask a person (no park, no judgeHuman) escalates as the system: "no person can answer here"', async () => {
    const { outcome, events } = await direct(graph({ judgment: { mode: 'post_step', callers: [{ kind: 'human' }] }, judge_models: {} }, ['a'], []), {});
    expect(outcome).toEqual({ status: 'failed', failure: { code: 'pattern_escalated', message: NO_PERSON } });
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'pattern.judgment', judgment: expect.objectContaining({ caller: { kind: 'system' }, verdict: { verdict: 'escalated', reason: NO_PERSON, caller: { kind: 'system' } } }) }),
    );
  });

  it('a human caller answered through judgeHuman: the person is recorded as the caller and their verdict is verified like any', async () => {
    const asked: string[] = [];
    const judgeHuman: JudgeHuman = async (waiting) => {
      asked.push(waiting.judgment_id);
      const now = new Date().toISOString();
      return { kind: 'answered', who: 'ana', answer: { verdict: 'approved', evidence: waiting.outputs.map((o) => o.id) }, started_at: now, ended_at: now };
    };
    const { outcome, events } = await direct(graph({ judgment: { mode: 'post_step', callers: [{ kind: 'human' }] }, judge_models: {} }, ['a'], []), { judgeHuman });
    expect(outcome).toEqual({ status: 'done', outputs: { output: 'a', approved: true, iterations: 1 } });
    expect(asked).toEqual(['p:j0.1.0.1']);
    expect(events).toContainEqual(expect.objectContaining({ type: 'pattern.judgment', judgment: expect.objectContaining({ caller: { kind: 'human', who: 'ana' } }) }));
  });

  it('post_step: the supervisor reviews as a member (after the worker, seeing its output) and a separate judge judges both — two levels', async () => {
    const members = [
      { id: 'supervisor', role: 'supervisor', instructions: 'Review the worker.', script: { student: [complete('Review: the worker covered reads and writes.')] } },
      { id: 'worker', role: 'worker', instructions: 'Write the note.', script: { student: [complete('Cache reads; invalidate on write.')] } },
    ];
    const judgment = { mode: 'post_step', callers: [{ kind: 'llm', profile: 'judge' }], verifier: { min_citations: 2, must_cite: ['worker', 'supervisor'] } };
    const { result, of } = await run(graph({ members, judgment }, [], [approve('worker#1', 'supervisor#1')]));
    expect(result.status).toBe('completed');
    // The supervisor is listed first, yet reviews last: it sees the worker's output of this iteration.
    expect(of('agent.started').map((e) => e.pattern_member)).toEqual(['worker#1', 'supervisor#1']);
    expect(of('agent.started')[1]?.task).toContain('Outputs so far in this iteration:\n[worker#1] (worker):\nCache reads; invalidate on write.');
    expect(String(result.outputs.note)).toMatch(/^## worker \(worker#1\)[\s\S]*## supervisor \(supervisor#1\)/);
    expect(of('pattern.judgment')[0]?.judgment.evidence).toEqual(['worker#1', 'supervisor#1']);
  });

  it('a replay runs a pattern on replay models again, and refuses one that would call a live model', async () => {
    const replay = { replay_of: 'earlier', live: false, invocations: {} };
    const scripted = await run(graph({}, ['a'], [approve('draft#1')]), { replay });
    expect(scripted.result.outputs).toEqual({ note: 'a', approved: true, iterations: 1 });
    const liveJudge = await run(graph({ judge_models: { judge: { provider: 'ollama', model: 'qwen3:8b' } } }, ['a'], []), { replay });
    expect(liveJudge.result.invocations.find((i) => i.id === 'p')?.failure).toEqual({ code: 'replay_mismatch', message: 'the pattern node p replays only on replay models (it uses judge judge)' });
  });

  it('a long output is stored trimmed in the pattern events, as any model text is', async () => {
    const long = `${'x'.repeat(40_000)} end`;
    const { result, of } = await run(graph({}, [long], [approve('draft#1')]));
    expect(result.status).toBe('completed');
    const iteration = of('pattern.iteration')[0];
    expect(iteration?.output.length).toBeLessThan(20_000);
    expect(iteration?.trimmed).toEqual([expect.objectContaining({ path: 'output' })]);
    expect(of('pattern.judgment')[0]?.trimmed?.length).toBeGreaterThan(0);
  });

  it('a cancel while a member works ends the node cancelled, without another iteration or judgment', async () => {
    const slow = { id: 'draft', role: 'writer', instructions: 'Write.', script: { latency_ms: 60_000, student: [complete('late')] } };
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    // The member would answer after a minute: the test's own timeout (30 s) fails it if the cancel waited for that.
    const { result, of } = await run(graph({ members: [slow] }, [], [approve('draft#1')]), { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(of('pattern.judgment')).toEqual([]);
    expect(of('pattern.ended')).toEqual([expect.objectContaining({ status: 'failed', reason: 'the run was cancelled' })]);
  }, 30_000);

  it('a member’s unsafe tool call is blocked by its own boundary: its teacher blocks the write, nothing is written, the node fails closed', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const target = join(ws.workspace, 'pwned.md');
    const member = {
      id: 'draft',
      role: 'writer',
      instructions: 'Write the note.',
      script: {
        student: [{ json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: target, content: 'overwrite' } } }, complete('a note')],
        teacher: [{ json: { verdict: 'block', reason_codes: ['unsafe_effect'], explanation: 'The note must not write files.' } }],
      },
    };
    const g = graph({ members: [member] }, [], [approve('draft#1')], { servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }], workspace: 'notes-sandbox' });
    const { result, of } = await run(g, { specDir: ws.dir, workspace: ws.workspace });
    expect(existsSync(target)).toBe(false);
    expect(of('tool.executed')).toEqual([]);
    expect(of('review.decided').filter((e) => e.pattern_member === 'draft#1').length).toBeGreaterThan(0);
    expect(of('agent.finished')).toEqual([expect.objectContaining({ pattern_member: 'draft#1', status: 'blocked' })]);
    expect(result.invocations.find((i) => i.id === 'p')?.failure).toEqual({ code: 'pattern_failed', message: 'the members failed: member draft ended blocked: The note must not write files.' });
    // Nothing was judged: a member that failed never produced an output to judge.
    expect(of('pattern.judgment')).toEqual([]);
  }, 60_000);

  it('a member that waits for a person (its ask_user) parks the run with its question; answered from the checkpoint (as after a restart), it resumes where it stood and the loop goes on to the judgment', async () => {
    const asks = { id: 'draft', role: 'writer', instructions: 'Write.', script: { student: [{ json: { decision_type: 'ask_user', question: 'Which cache?' } }, complete('A note about Redis.')] } };
    const reviewer = { id: 'review', role: 'reviewer', instructions: 'Review.', script: { student: [complete('Reviewed: fine.')] } };
    const g = graph({ members: [reviewer, asks], judgment: { mode: 'post_step', callers: [{ kind: 'llm', profile: 'judge' }], verifier: { must_cite: ['draft'] } } }, [], [approve('draft#1', 'review#1')]);
    const first = await run(g);
    expect(first.result.status).toBe('waiting');
    const question = first.result.interventions?.[0]?.intervention;
    expect(question?.decision).toEqual(expect.objectContaining({ decision_type: 'ask_user', question: 'Which cache?' }));
    expect(first.of('intervention.requested')).toEqual([expect.objectContaining({ pattern_member: 'draft#1' })]);
    // Parked mid-iteration: the member before it is done, nothing is judged yet.
    expect(first.of('agent.finished').map((e) => e.pattern_member)).toEqual(['review#1']);
    expect(first.of('pattern.iteration')).toEqual([]);

    const checkpoint = WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(first.result.checkpoint)));
    const second = await run(g, { inputs: {}, resume: { checkpoint, answer: { action: 'reply', text: 'Redis.' } } });
    expect(second.result.status).toBe('completed');
    expect(second.result.outputs).toEqual({ note: expect.stringContaining('A note about Redis.'), approved: true, iterations: 1 });
    // The member before the question was not run again; the asking member resumed from its checkpoint with the reply.
    expect(second.of('agent.started').map((e) => e.pattern_member)).toEqual([]);
    expect(second.of('intervention.answered')).toEqual([expect.objectContaining({ pattern_member: 'draft#1', answer: { action: 'reply', text: 'Redis.' } })]);
    expect(second.of('pattern.iteration')).toEqual([expect.objectContaining({ iteration: 1, outputs: [{ id: 'review#1', member_id: 'review' }, { id: 'draft#1', member_id: 'draft' }] })]);
    expect(second.judgments.map((j) => [j.verdict?.verdict, j.evidence])).toEqual([['approved', ['draft#1', 'review#1']]]);
  }, 60_000);

  it('where the node cannot wait persisted (a host with no park), a member that waits for a person fails it closed as pattern_member_waiting, saying which member and what it asked', async () => {
    const asks = { id: 'draft', role: 'writer', instructions: 'Write.', script: { student: [{ json: { decision_type: 'ask_user', question: 'Which cache?' } }] } };
    const { outcome, events } = await direct(graph({ members: [asks] }, [], [approve('draft#1')]), {});
    expect(outcome).toEqual({
      status: 'failed',
      failure: { code: 'pattern_member_waiting', message: expect.stringMatching(/^member draft \(draft#1\) waits for a person: .*Which cache\?.*a pattern member cannot wait for a person/) },
    });
    expect(events).toContainEqual(expect.objectContaining({ type: 'intervention.requested', pattern_member: 'draft#1' }));
    expect(events).not.toContainEqual(expect.objectContaining({ type: 'pattern.judgment' }));
  }, 60_000);
});
