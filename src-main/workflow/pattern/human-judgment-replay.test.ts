import { describe, expect, it } from 'vitest';
import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import { replayJudgedWorkflow } from '../../../test-support/human-judged-pattern';
import { createMemoryLedger } from '../../mcp/idempotency-ledger';
import { WorkflowGraph } from '@shared/workflow/document';
import { runWorkflow, type LiveAnswer } from '../run-workflow';
import { WorkflowCheckpoint } from '../workflow-checkpoint';

/**
 * A workflow run parked at a person's judgment and resumed from its checkpoint (as `steward answer`
 * and the app do): the member and the second (model) judge are on replay scripts — the scripted
 * provider is the only double, at the model boundary — and go on with their next answers, not
 * their first ones again.
 */

describe('a workflow run parked at a person’s judgment, resumed from its checkpoint', () => {
  it('goes on at the judgment; the replay member and judge take their next answers; every judgment is verified and recorded with its caller', async () => {
    const ledger = createMemoryLedger();
    const events: RunEvent[] = [];
    const base = { graph: replayJudgedWorkflow(), specDir: process.cwd(), ledger, onEvent: (e: RunEvent) => void events.push(e) };
    const first = await runWorkflow({ ...base, inputs: { topic: 'caching' } });
    expect(first.status).toBe('waiting');
    expect(first.interventions?.[0]?.intervention).toMatchObject({ kind: 'pattern_judgment', judgment: { iteration: 1, output: 'Draft 1' } });
    // What the data folder keeps, read back as a later process would.
    const parked = WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(first.checkpoint)));
    const q1 = first.interventions?.[0]?.intervention;
    if (!q1) throw new Error('no question');

    const second = await runWorkflow({ ...base, inputs: {}, resume: { checkpoint: parked, answer: { action: 'reject', note: 'Add the risks.' } } });
    expect(second.status).toBe('waiting');
    const q2 = second.interventions?.[0]?.intervention;
    // Both rejections reach iteration 2; the replay member gives its second answer.
    expect(q2?.judgment).toMatchObject({ iteration: 2, output: 'Draft 2, with the risks' });
    expect(q2?.judgment?.previous_feedback).toContain('Add the risks.');
    expect(q2?.judgment?.previous_feedback).toContain('The risks are missing.');
    expect(q2?.id).not.toBe(q1.id);

    const third = await runWorkflow({ ...base, inputs: {}, resume: { checkpoint: WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(second.checkpoint))), answer: { action: 'approve' } } });
    expect(third).toMatchObject({ status: 'completed', outputs: { note: 'Draft 2, with the risks', approved: true } });
    const records = events.filter((e): e is RunEventOf<'pattern.judgment'> => e.type === 'pattern.judgment').map((e) => e.judgment);
    expect(records.map((r) => [r.iteration, r.caller.kind, r.verdict?.verdict, r.verification.ok, r.attempt])).toEqual([
      [1, 'human', 'rejected', true, 1],
      [1, 'llm', 'rejected', true, 1],
      [2, 'human', 'approved', true, 1],
      [2, 'llm', 'approved', true, 1],
    ]);
    // The member ran twice in all: iteration 1 was not run again on resume.
    expect(events.filter((e) => e.type === 'pattern.iteration').map((e) => (e.type === 'pattern.iteration' ? e.iteration : 0))).toEqual([1, 2]);
    expect(events.filter((e) => e.type === 'intervention.answered').map((e) => (e.type === 'intervention.answered' ? e.answer.action : ''))).toEqual(['reject', 'approve']);
  }, 60_000);
});

describe('a person’s judgment answered while another branch of the run still runs', () => {
  it('resumes the pattern in the live run: no park, both judgments answered live, the run completes with both branches’ outputs', async () => {
    const judged = replayJudgedWorkflow();
    const graph = WorkflowGraph.parse({
      ...judged,
      nodes: [
        ...judged.nodes.map((n) => (n.kind === 'output' ? { ...n, fields: [...n.fields, { name: 'thought', type: 'text' }] } : n)),
        { id: 'slow', kind: 'agent', instructions: 'Think.', task: 'Think about {{topic}}.', inputs: [{ name: 'topic', type: 'text' }], servers: [], script: { student: [{ json: { decision_type: 'complete', output: 'thought' }, delay_ms: 4_000 }] } },
      ],
      edges: [...judged.edges, { from: { node: 'in', port: 'topic' }, to: { node: 'slow', port: 'topic' } }, { from: { node: 'slow', port: 'output' }, to: { node: 'out', port: 'thought' } }],
    });
    const events: RunEvent[] = [];
    let live: LiveAnswer | undefined;
    const done = runWorkflow({ graph, specDir: process.cwd(), ledger: createMemoryLedger(), inputs: { topic: 'caching' }, onEvent: (e) => void events.push(e), liveAnswers: (a) => (live = a) });
    const asked = () => events.filter((e): e is RunEventOf<'intervention.requested'> => e.type === 'intervention.requested').map((e) => e.intervention);
    await expect.poll(() => asked().length, { timeout: 10_000 }).toBe(1);
    expect(live?.(asked()[0]?.id ?? '', { action: 'reject', note: 'Add the risks.' })).toBe(true);
    await expect.poll(() => asked().length, { timeout: 10_000 }).toBe(2);
    expect(asked()[1]?.judgment).toMatchObject({ iteration: 2, output: 'Draft 2, with the risks' });
    expect(events.some((e) => e.type === 'node.invocation' && e.node === 'slow' && e.status === 'done')).toBe(false);
    expect(live?.(asked()[1]?.id ?? '', { action: 'approve' })).toBe(true);
    const result = await done;
    expect(result).toMatchObject({ status: 'completed', outputs: { note: 'Draft 2, with the risks', approved: true, thought: 'thought' } });
    expect(events.filter((e) => e.type === 'workflow.started')).toHaveLength(1);
  }, 60_000);
});
