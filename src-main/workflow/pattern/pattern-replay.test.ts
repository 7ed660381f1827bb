import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, type RunEventOf } from '@shared/contracts/events';
import { planWorkflowReplay, replayableWorkflowStart } from '@shared/replay/workflow-replay';
import { WorkflowGraph } from '@shared/workflow/document';
import { EXAMPLES } from '../../../test-support/workspace';
import { replayJudgedWorkflow } from '../../../test-support/human-judged-pattern';
import { createMemoryLedger } from '../../mcp/idempotency-ledger';
import { runWorkflow, type RunWorkflowOptions } from '../run-workflow';
import { WorkflowCheckpoint } from '../workflow-checkpoint';

/**
 * A replay of a recorded pattern run is exact (issue 12): its members answer with their recorded
 * answers and its judges — a person included — give back their recorded judgments, so the replay
 * neither runs the node's replay scripts again nor asks anybody. The recordings are real runs (a
 * committed fixture, and one recorded here); the scripted provider is the only double.
 */

const RECORDED = fileURLToPath(new URL('../../../src-renderer/testing/recorded', import.meta.url));
const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function run(options: Omit<RunWorkflowOptions, 'ledger' | 'onEvent' | 'specDir'>, events: RunEvent[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'steward-pattern-replay-'));
  temps.push(dir);
  const result = await runWorkflow({ specDir: dir, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), ...options });
  return { result, events };
}

function planOf(events: readonly RunEvent[]) {
  const started = replayableWorkflowStart(events, events[0]?.run_id ?? '');
  if (!started) throw new Error('not a workflow run');
  return planWorkflowReplay(events, started, { live: false });
}

const LIVE = { provider: 'ollama', model: 'qwen3:8b' } as const;

/**
 * The same graph with other answers in every pattern node — other replay scripts, and live models
 * for its members and judges (no model server runs here): a replay that asked them would show it.
 */
function withOtherScripts(graph: WorkflowGraph, task?: string): WorkflowGraph {
  return WorkflowGraph.parse({
    ...graph,
    nodes: graph.nodes.map((n) =>
      n.kind !== 'pattern'
        ? n
        : {
            ...n,
            ...(task !== undefined ? { task } : {}),
            members: n.members.map((m) => ({ ...m, models: { student: LIVE, teacher: LIVE }, script: { student: [{ json: { decision_type: 'complete', output: `NOT RECORDED (${m.id})` } }] } })),
            judge_models: Object.fromEntries(Object.keys(n.judge_models).map((profile) => [profile, LIVE])),
            judge_script: { teacher: [{ json: { verdict: 'escalated', reason: 'NOT RECORDED' } }] },
          },
    ),
  });
}

const of = <T extends RunEvent['type']>(events: readonly RunEvent[], type: T) => events.filter((e): e is RunEventOf<T> => e.type === type);
const judged = (events: readonly RunEvent[]) => of(events, 'pattern.judgment').map(({ judgment: j }) => [j.id, j.caller, j.verdict?.verdict, j.verdict?.verdict === 'rejected' ? j.verdict.feedback : undefined, j.evidence, j.verification.ok]);
const iterated = (events: readonly RunEvent[]) => of(events, 'pattern.iteration').map((e) => [e.invocation_id, e.step, e.iteration, e.outputs, e.output]);

describe('replaying a recorded pattern run', () => {
  it('the recorded pattern-pipeline run (a fixture): every member output and judgment comes back as recorded, not from the node’s scripts', async () => {
    const recorded = RunEvent.array().parse(JSON.parse(readFileSync(join(RECORDED, 'pattern-pipeline.events.json'), 'utf8')));
    const graph = WorkflowGraph.parse(JSON.parse(readFileSync(join(EXAMPLES, 'pattern-pipeline.workflow.json'), 'utf8')));
    const { plan, gaps } = planOf(recorded);
    expect(gaps).toEqual([]);
    const pattern = Object.values(plan.invocations).find((i) => i.kind === 'pattern');
    expect(pattern && Object.keys(pattern.members).length).toBe(of(recorded, 'pattern.iteration').flatMap((e) => e.outputs).length);

    const { result, events } = await run({ graph: withOtherScripts(graph), inputs: {}, replay: plan });
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual(of(recorded, 'run.finished')[0]?.outputs);
    expect(iterated(events)).toEqual(iterated(recorded));
    expect(judged(events)).toEqual(judged(recorded));
    expect(of(events, 'pattern.ended').map((e) => [e.status, e.approved, e.iterations])).toEqual(of(recorded, 'pattern.ended').map((e) => [e.status, e.approved, e.iterations]));
    expect(JSON.stringify(events)).not.toContain('NOT RECORDED');
    // Nobody was asked: no model call left this machine for a live model.
    expect(of(events, 'model.called').filter((e) => e.provider !== 'script')).toEqual([]);
  }, 60_000);

  it('a judge answer that could not be used is kept with its judgment and given back: the replay fails it the same way, with no gap', async () => {
    const example = WorkflowGraph.parse(JSON.parse(readFileSync(join(EXAMPLES, 'pattern-pipeline.workflow.json'), 'utf8')));
    // The judge first answers with a verdict that does not exist; asked again, it answers as the example does.
    const graph = WorkflowGraph.parse({
      ...example,
      nodes: example.nodes.map((n) => (n.kind === 'pattern' && n.judge_script ? { ...n, judge_script: { ...n.judge_script, teacher: [{ json: { verdict: 'perhaps', evidence: ['draft#1'] } }, ...(n.judge_script.teacher ?? [])] } } : n)),
    });
    const { result: first, events: recorded } = await run({ graph, inputs: {} });
    expect(first.status).toBe('completed');
    const unusable = of(recorded, 'pattern.judgment').find((e) => !e.judgment.verification.ok)?.judgment;
    expect(unusable).toMatchObject({ verification: { ok: false }, answer: { verdict: 'perhaps', evidence: ['draft#1'] } });

    const { plan, gaps } = planOf(recorded);
    expect(gaps).toEqual([]);
    const { result, events } = await run({ graph: withOtherScripts(graph), inputs: {}, replay: plan });
    expect(result.status).toBe('completed');
    expect(judged(events)).toEqual(judged(recorded));
    const problems = (run: readonly RunEvent[]) => of(run, 'pattern.judgment').map((e) => (e.judgment.verification.ok ? 'ok' : e.judgment.verification.problem));
    expect(problems(events)).toEqual(problems(recorded));
    expect(JSON.stringify(events)).not.toContain('NOT RECORDED');
  }, 60_000);

  it('a person’s recorded judgments are given back: the replay does not park, the person is the caller again, their feedback reaches the next iteration', async () => {
    // Recorded here: parked at each human judgment and answered from the checkpoint, as the app and `steward answer` do.
    const graph = replayJudgedWorkflow();
    const recorded: RunEvent[] = [];
    const first = await run({ graph, inputs: { topic: 'caching' } }, recorded);
    expect(first.result.status).toBe('waiting');
    const second = await run({ graph, inputs: {}, resume: { checkpoint: WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(first.result.checkpoint))), answer: { action: 'reject', note: 'Add the risks.' } } }, recorded);
    expect(second.result.status).toBe('waiting');
    const third = await run({ graph, inputs: {}, resume: { checkpoint: WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(second.result.checkpoint))), answer: { action: 'approve' } } }, recorded);
    expect(third.result.status).toBe('completed');

    const { plan } = planOf(recorded);
    const { result, events } = await run({ graph: withOtherScripts(graph), inputs: { topic: 'caching' }, replay: plan });
    expect(result.invocations.flatMap((i) => (i.failure ? [i.failure] : []))).toEqual([]);
    expect([result.status, result.message]).toEqual(['completed', undefined]);
    expect(result.outputs).toEqual(third.result.outputs);
    expect(of(events, 'intervention.requested')).toEqual([]);
    expect(judged(events)).toEqual(judged(recorded));
    expect(judged(events).map(([, caller, verdict]) => [caller, verdict])).toEqual([
      [{ kind: 'human' }, 'rejected'],
      [{ kind: 'llm', profile: 'judge' }, 'rejected'],
      [{ kind: 'human' }, 'approved'],
      [{ kind: 'llm', profile: 'judge' }, 'approved'],
    ]);
    expect(of(events, 'agent.started').find((e) => e.pattern_member === 'draft#2')?.task).toContain('Add the risks.');
    expect(iterated(events)).toEqual(iterated(recorded));
  }, 60_000);

  it('a replay that goes another way than the record (the node’s task changed) fails the node replay_mismatch instead of judging afresh', async () => {
    const recorded = RunEvent.array().parse(JSON.parse(readFileSync(join(RECORDED, 'pattern-supervisor.events.json'), 'utf8')));
    const graph = WorkflowGraph.parse(JSON.parse(readFileSync(join(EXAMPLES, 'pattern-supervisor.workflow.json'), 'utf8')));
    const { plan } = planOf(recorded);
    const { result, events } = await run({ graph: withOtherScripts(graph, 'Summarise something else.'), inputs: {}, replay: plan });
    const failure = result.invocations.find((i) => i.failure?.code === 'replay_mismatch')?.failure;
    expect(failure?.message).toMatch(/worker#1 got another task than in the recorded run/);
    expect(of(events, 'pattern.judgment')).toEqual([]);
  }, 60_000);

  it('a recorded run whose member asked a person replays to the same question; the answer resumes the replay on its record and it ends as recorded', async () => {
    const complete = (output: string) => ({ json: { decision_type: 'complete', output } });
    const graph = WorkflowGraph.parse({
      ...replayJudgedWorkflow(),
      nodes: replayJudgedWorkflow().nodes.map((n) =>
        n.kind === 'pattern'
          ? { ...n, members: [{ id: 'draft', role: 'writer', instructions: 'Write.', script: { student: [{ json: { decision_type: 'ask_user', question: 'Which cache?' } }, complete('A note about Redis.')] } }], judgment: { mode: 'post_step', callers: [{ kind: 'llm', profile: 'judge' }], verifier: { must_cite: ['draft'] } }, judge_script: { teacher: [{ json: { verdict: 'approved', evidence: ['draft#1'] } }] } }
          : n,
      ),
    });
    const recorded: RunEvent[] = [];
    const first = await run({ graph, inputs: { topic: 'caching' } }, recorded);
    expect(first.result.status).toBe('waiting');
    const done = await run({ graph, inputs: {}, resume: { checkpoint: WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(first.result.checkpoint))), answer: { action: 'reply', text: 'Redis.' } } }, recorded);
    expect(done.result.status).toBe('completed');

    const { plan } = planOf(recorded);
    const replayed = await run({ graph: withOtherScripts(graph), inputs: { topic: 'caching' }, replay: plan });
    expect(replayed.result.status).toBe('waiting');
    expect(replayed.result.interventions?.[0]?.intervention.decision).toEqual(expect.objectContaining({ decision_type: 'ask_user', question: 'Which cache?' }));
    const events: RunEvent[] = [...replayed.events];
    const resumed = await run({ graph: withOtherScripts(graph), inputs: {}, resume: { checkpoint: WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(replayed.result.checkpoint))), answer: { action: 'reply', text: 'Redis.' } } }, events);
    expect(resumed.result.status).toBe('completed');
    expect(resumed.result.outputs).toEqual(done.result.outputs);
    expect(iterated(events)).toEqual(iterated(recorded));
    expect(judged(events)).toEqual(judged(recorded));
    expect(JSON.stringify(events)).not.toContain('NOT RECORDED');
  }, 60_000);
});
