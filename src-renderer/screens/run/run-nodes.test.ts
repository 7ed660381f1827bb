import { describe, expect, it } from 'vitest';
import type { Intervention } from '@shared/contracts/intervention';
import type { WorkflowRunFacts } from '../../db/db';
import { deriveInvocations } from '../../db/derive-invocations';
import { eventLog } from '../../testing/event-fixtures';
import { agentAsks, agentRun, item, nodeStatus, startWorkflow, triageRun } from '../../testing/workflow-fixtures';
import { summarize } from '@shared/history/run-summary';
import { focusTarget, previewValue, stoppedByHostStop, workflowPending, workflowRunSummary } from './run-nodes';

function waitingRun(runId: string) {
  const log = eventLog(runId);
  startWorkflow(log);
  const id = nodeStatus(log, 'classify', 'running', { lineage: item(2), inputs: { item: 'c.md' } });
  agentRun(log, id, 1, { finish: false });
  const asked = agentAsks(log, id, 1);
  nodeStatus(log, 'classify', 'waiting', { lineage: item(2) });
  return { log, id, asked };
}

describe('workflowRunSummary', () => {
  it('says how many nodes the run has and how many invocations wait, run or failed', () => {
    expect(workflowRunSummary({ nodes: 5, invocations: { a: ['done', 1], b: ['waiting', 2], c: ['done', 3] }, invocation_rounds: {} })).toBe('5 nodes · 1 waiting');
    expect(workflowRunSummary({ nodes: 1, invocations: { a: ['failed', 1], b: ['failed', 2], c: ['running', 3] }, invocation_rounds: {} })).toBe('1 node · 1 running · 2 failed');
    expect(workflowRunSummary({ nodes: 3, invocations: {}, invocation_rounds: {} })).toBe('3 nodes');
  });

  it('a call a person declined is said as declined, not as a failure (issue 28): folded from its events, as the Runs row shows it', () => {
    const log = eventLog('run-wf-declined-1');
    startWorkflow(log);
    nodeStatus(log, 'classify', 'running');
    nodeStatus(log, 'classify', 'failed', { failure: { code: 'declined_by_person', message: 'you declined fs/write_file' } });
    nodeStatus(log, 'summarize', 'failed', { failure: { code: 'tool_error', message: 'the tool failed' } });
    const row = summarize(undefined, log.events, log.events.length);
    expect(row?.workflow && workflowRunSummary(row.workflow, 'declined')).toMatch(/ · 1 failed · 1 declined$/);
    expect(workflowRunSummary({ nodes: 2, invocations: { a: ['done', 1], b: ['declined', 2] }, invocation_rounds: {} }, 'declined')).toBe('2 nodes · 1 declined');
  });

  it('once the run ended, nothing of it is said to wait or run (a host stop cut those off)', () => {
    const facts = { nodes: 4, invocations: { a: ['running', 1], b: ['waiting', 2], c: ['failed', 3] }, invocation_rounds: {} } satisfies WorkflowRunFacts;
    expect(workflowRunSummary(facts, 'interrupted')).toBe('4 nodes · 1 failed · 2 cut off');
    expect(workflowRunSummary(facts, 'waiting')).toBe('4 nodes · 1 waiting · 1 running · 1 failed');
  });
});

describe('workflowPending', () => {
  it('a node waiting for a person is answerable through the workflow run, named by its invocation', () => {
    const { log, id, asked } = waitingRun('run-wf-pending-1');
    const [pending, ...rest] = workflowPending(deriveInvocations(log.events), undefined, log.runId);
    expect(rest).toEqual([]);
    // The event names the nested agent's run; the host answers it through the workflow's.
    expect(asked.run_id).not.toBe(log.runId);
    expect(pending?.intervention).toMatchObject({ id: asked.id, run_id: log.runId });
    expect(pending?.invocation?.id).toBe(id);
  });

  it('after a reload the host\'s list is the authority: its questions are shown, placed at their node when the events know it', () => {
    const { log, id, asked } = waitingRun('run-wf-pending-2');
    const fromHost: Intervention[] = [
      { ...asked, run_id: log.runId },
      { ...asked, id: 'only-the-host-knows', run_id: log.runId },
      { ...asked, id: 'another-run', run_id: 'run-elsewhere-00' },
    ];
    const pending = workflowPending(deriveInvocations(log.events.slice(0, 1)), fromHost, log.runId);
    expect(pending.map((p) => p.intervention.id)).toEqual([asked.id, 'only-the-host-knows']);
    const placed = workflowPending(deriveInvocations(log.events), fromHost, log.runId);
    expect(placed.map((p) => p.invocation?.id)).toEqual([id, undefined]);
  });

  it('nothing is pending once the run finished or the question was answered', () => {
    const { log, asked } = waitingRun('run-wf-pending-3');
    log.add({ type: 'intervention.answered', round: 1, intervention_id: asked.id, answer: { action: 'approve' } });
    expect(workflowPending(deriveInvocations(log.events), [{ ...asked, run_id: log.runId }], log.runId, new Set([asked.id]))).toEqual([]);
    const finished = eventLog('run-wf-pending-4');
    triageRun(finished);
    expect(workflowPending(deriveInvocations(finished.events), [], finished.runId, new Set(), true)).toEqual([]);
  });
});

describe('focusTarget', () => {
  it('opens the invocation of a node that needs attention first, else its first', () => {
    const log = eventLog('run-wf-focus-01');
    triageRun(log);
    const views = deriveInvocations(log.events);
    expect(focusTarget(views, 'check')).toBe('check[files=1]');
    expect(focusTarget(views, 'classify')).toBe('classify[files=0]');
    expect(focusTarget(views, 'report')).toBe('report');
    expect(focusTarget(views, 'nowhere')).toBeUndefined();
  });
});

describe('previewValue', () => {
  it('shows a text as it is and any other value as JSON', () => {
    expect(previewValue('hello')).toEqual({ text: 'hello', truncated: false, length: 5 });
    expect(previewValue({ a: [1] }).text).toBe('{\n  "a": [\n    1\n  ]\n}');
  });

  it('cuts a long value at the limit and says how long it is', () => {
    const long = 'x'.repeat(5000);
    expect(previewValue(long, 100)).toEqual({ text: 'x'.repeat(100), truncated: true, length: 5000 });
    expect(previewValue(long, 100, true)).toEqual({ text: long, truncated: false, length: 5000 });
  });

  it('never throws on a value JSON cannot show', () => {
    expect(previewValue(undefined).text).toBe('(nothing)');
  });
});

describe('stoppedByHostStop', () => {
  it('names the invocations the last host stop stopped that have not started again since, and none without a stop', () => {
    const { log, id } = waitingRun('run-stopped');
    const other = nodeStatus(log, 'classify', 'running', { lineage: item(3), inputs: { item: 'd.md' } });
    expect(stoppedByHostStop(log.events)).toEqual(new Set());
    log.add({ type: 'run.notice', message: 'The host stopped while this run waited for you.', stopped: [other] });
    expect(stoppedByHostStop(log.events)).toEqual(new Set([other]));
    nodeStatus(log, 'classify', 'running', { lineage: item(3), inputs: { item: 'd.md' } });
    expect(stoppedByHostStop(log.events)).toEqual(new Set());
    expect(id).not.toBe(other);
  });
});
