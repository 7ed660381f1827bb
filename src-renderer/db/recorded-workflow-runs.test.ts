import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import { StewardDb } from './db';
import { ingestEvents } from './ingest-events';
import { deriveInvocations, invocationLabel, nodeStates } from './derive-invocations';
import { deriveRounds } from './derive-rounds';
import { deriveRunFacts } from './run-facts';
import { workflowPending, workflowRunSummary } from '../screens/run/run-nodes';
import triageJson from '../testing/recorded/folder-triage.events.json';
import waitingJson from '../testing/recorded/share-waiting.events.json';
import resumedJson from '../testing/recorded/share-resumed.events.json';
import pipelineJson from '../testing/recorded/pattern-pipeline.events.json';

/** Runs the host really emitted (recorded by src-main/workflow/recorded-runs.test.ts), validated as pushed events are. */
const triage = RunEvent.array().parse(triageJson);
const waiting = RunEvent.array().parse(waitingJson);
const resumed = RunEvent.array().parse(resumedJson);
const pipeline = RunEvent.array().parse(pipelineJson);

let db: StewardDb;
beforeEach(async () => {
  db = new StewardDb(`steward-recorded-test-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

describe('a recorded folder triage run in the app', () => {
  const runId = triage[0]?.run_id ?? '';

  it('gets a runs-list row with its workflow, status, outputs and every round of its nodes', async () => {
    await ingestEvents(db, triage);
    const run = await db.runs.get(runId);
    const finished = triage.at(-1);
    expect(finished?.type).toBe('run.finished');
    expect(run).toMatchObject({ workflow_id: 'folder-triage', spec_name: 'Folder triage', status: 'completed', stored_events: triage.length, event_count: triage.length });
    expect(run?.rounds).toBe(finished?.type === 'run.finished' ? finished.rounds : -1);
    expect(run?.output).toContain('"report"');
    expect(run?.workflow && workflowRunSummary(run.workflow, run.status)).toBe('11 nodes');
  });

  it('lists every invocation, each item under the iterate, every one done, with an agent\'s rounds readable per item', () => {
    const views = deriveInvocations(triage);
    expect(views.every((v) => v.status === 'done')).toBe(true);
    const iterate = views.findIndex((v) => v.id === 'each-file');
    const items = views.filter((v) => v.lineage.length === 1);
    expect(items).toHaveLength(20);
    for (const v of items) {
      expect(v.depth).toBe(1);
      expect(views.indexOf(v)).toBeGreaterThan(iterate);
    }
    const classify = items.filter((v) => v.node === 'classify');
    expect(classify.map((v) => invocationLabel(v))).toEqual([1, 2, 3, 4, 5].map((i) => `${classify[0]?.label} · item ${i}`));
    for (const v of classify) {
      expect(v.kind).toBe('agent');
      expect(v.rounds).toBeGreaterThan(0);
      expect(deriveRounds(triage, v.id)).toHaveLength(v.rounds);
    }
    expect(nodeStates(views).classify).toEqual({ status: 'done', counts: { done: 5 }, total: 5 });
    // The run's own rounds stay empty: every round belongs to a node.
    expect(deriveRounds(triage)).toEqual([]);
  });

  it('the reviewed write shows the teacher\'s verdict in its one round', () => {
    const [call] = deriveRounds(triage, 'write');
    expect(call?.verdicts.map((v) => v.verdict?.verdict)).toEqual(['accept']);
    expect(call?.execution?.tool).toBe('write_file');
  });

  it('arriving in reverse, then again in order, gives the same row and views', async () => {
    await ingestEvents(db, [...triage].reverse().slice(0, 40));
    await ingestEvents(db, triage);
    const other = new StewardDb(`steward-recorded-other-${Math.random().toString(36).slice(2)}`);
    try {
      await ingestEvents(other, triage);
      expect(await db.runs.get(runId)).toEqual(await other.runs.get(runId));
    } finally {
      await other.delete();
    }
    expect(deriveInvocations([...triage].reverse())).toEqual(deriveInvocations(triage));
  });
});

describe('a recorded workflow whose agent node waits for a person', () => {
  const runId = waiting[0]?.run_id ?? '';

  it('is waiting, and its question is answerable through the workflow run, named by its node', async () => {
    await ingestEvents(db, waiting);
    const run = await db.runs.get(runId);
    expect(run?.status).toBe('waiting');
    expect(run?.workflow && workflowRunSummary(run.workflow, run.status)).toBe('4 nodes · 1 waiting');
    const views = deriveInvocations(waiting);
    const [question, ...more] = workflowPending(views, undefined, runId, deriveRunFacts(waiting).answeredIds);
    expect(more).toEqual([]);
    expect(question?.intervention.run_id).toBe(runId);
    expect(question?.invocation?.id).toBe('sharer');
    expect(nodeStates(views).sharer?.status).toBe('waiting');
  });

  it('after the answer it completes, nothing is pending and the node shows the rounds before and after the wait', async () => {
    const all = [...waiting, ...resumed];
    await ingestEvents(db, waiting);
    await ingestEvents(db, resumed);
    const run = await db.runs.get(runId);
    expect(run).toMatchObject({ status: 'completed', stored_events: all.length, event_count: all.length });
    const views = deriveInvocations(all);
    expect(workflowPending(views, [], runId, deriveRunFacts(all).answeredIds, deriveRunFacts(all).finished)).toEqual([]);
    const sharer = views.find((v) => v.id === 'sharer');
    expect(sharer).toMatchObject({ status: 'done', outputs: { output: 'shared it' } });
    const rounds = deriveRounds(all, 'sharer');
    expect(rounds.some((r) => r.intervention?.answer?.action === 'approve')).toBe(true);
    expect(rounds.some((r) => r.execution?.tool === 'write_file')).toBe(true);
  });
});

describe('a recorded pattern run (PIPELINE, a rejected draft, then approved steps) in the app', () => {
  it('gets a completed runs-list row with the approved notes, and the pattern invocation done with its members’ rounds', async () => {
    await ingestEvents(db, pipeline);
    const run = await db.runs.get(pipeline[0]?.run_id ?? '');
    expect(run).toMatchObject({ workflow_id: 'pattern-pipeline', status: 'completed', stored_events: pipeline.length });
    expect(run?.output).toContain('## Risks');
    const notes = deriveInvocations(pipeline).find((v) => v.id === 'notes');
    expect(notes).toMatchObject({ kind: 'pattern', status: 'done' });
    // Four member runs (draft twice, review, final), one round each, all under the pattern's invocation.
    expect(notes?.rounds).toBe(4);
  });
});
