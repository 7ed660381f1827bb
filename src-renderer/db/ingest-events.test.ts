import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StewardDb, runEvents, type RunRow } from './db';
import { ingestEvents } from './ingest-events';
import { runWords } from '@shared/history/search-words';
import { blockedRound, eventLog, finishRun, readExecutedRound, startRun, writeReplacedRound } from '../testing/event-fixtures';
import { agentAsks, agentRun, item, nodeStatus, startWorkflow, triageRun } from '../testing/workflow-fixtures';

let db: StewardDb;
let dbCount = 0;

beforeEach(async () => {
  // A fresh database per test: no test depends on another's leftovers.
  db = new StewardDb(`steward-ingest-test-${++dbCount}-${Math.random().toString(36).slice(2)}`);
  await db.open();
});

afterEach(async () => {
  await db.delete();
});

function fullRun(runId: string) {
  const log = eventLog(runId);
  startRun(log);
  readExecutedRound(log, 0);
  writeReplacedRound(log, 1);
  finishRun(log, 'completed', 2, 'Summary written to notes/summary.md');
  return log;
}

describe('ingestEvents', () => {
  it('a run the host names as imported is marked so, and stays marked as the rest of its events arrive; another run is not', async () => {
    const fromFile = eventLog('run-from-file');
    startRun(fromFile);
    const ranHere = eventLog('run-ran-here');
    startRun(ranHere);
    await ingestEvents(db, [...fromFile.events, ...ranHere.events], { imported: new Set(['run-from-file']) });
    finishRun(fromFile, 'completed', 0);
    await ingestEvents(db, fromFile.events.slice(-1));
    expect(await db.runs.get('run-from-file')).toMatchObject({ imported: true, status: 'completed' });
    expect((await db.runs.get('run-ran-here'))?.imported).toBeUndefined();
  });

  it('a run is found by the words of its task as soon as it starts, and by those of its output once it ends', async () => {
    const log = eventLog('run-words-0001');
    startRun(log);
    await ingestEvents(db, log.events);
    const found = async (w: string) => [...new Set(await db.runs.where('words').startsWith(w).primaryKeys())];
    expect(await found('summar')).toEqual([log.runId]);
    expect(await found('written')).toEqual([]);
    finishRun(log, 'completed', 0, 'Summary WRITTEN to notes/summary.md');
    await ingestEvents(db, log.events.slice(-1));
    expect(await found('written')).toEqual([log.runId]);
    const row = await db.runs.get(log.runId);
    expect(row?.words).toEqual(runWords(row!));
    expect(row?.words).toEqual(expect.arrayContaining(['tidy', 'notes', 'folder', 'todo', 'md', 'written']));
  });

  it('stores each event once when the same batch is replayed', async () => {
    const log = fullRun('run-replay-0001');
    const first = await ingestEvents(db, log.events);
    const second = await ingestEvents(db, log.events);

    expect(first.ids).toHaveLength(log.events.length);
    expect(first.fresh).toBe(log.events.length);
    expect(second.fresh).toBe(0);
    expect(await db.events.count()).toBe(log.events.length);
    const stored = await runEvents(db, log.runId);
    expect(stored.map((e) => e.seq)).toEqual(log.events.map((e) => e.seq));
    const run = await db.runs.get(log.runId);
    expect(run?.stored_events).toBe(log.events.length);
  });

  it('stores a run split across two overlapping batches exactly once, in order', async () => {
    const log = fullRun('run-overlap-001');
    const cut = Math.floor(log.events.length / 2);
    await ingestEvents(db, log.events.slice(0, cut + 3));
    const second = await ingestEvents(db, log.events.slice(cut));

    expect(second.ids).toHaveLength(log.events.length - cut);
    expect(second.fresh).toBe(log.events.length - cut - 3);
    const stored = await runEvents(db, log.runId);
    expect(stored.map((e) => e.id)).toEqual(log.events.map((e) => e.id));
    const run = await db.runs.get(log.runId);
    expect(run?.stored_events).toBe(log.events.length);
    expect(run?.event_count).toBe(log.events.length);
  });

  it('summarises a finished run from its events', async () => {
    const log = fullRun('run-summary-01');
    await ingestEvents(db, log.events);
    const run = await db.runs.get(log.runId);
    expect(run).toMatchObject({
      run_id: log.runId,
      workflow_id: 'notes-cleanup',
      spec_name: 'Tidy the notes folder',
      task: 'Summarise notes/todo.md into notes/summary.md',
      status: 'completed',
      rounds: 2,
      output: 'Summary written to notes/summary.md',
      models: { student: 'replay', teacher: 'replay' },
      supervision_enabled: true,
      event_count: log.events.length,
      started_at: log.events[0]?.ts,
      finished_at: log.events.at(-1)?.ts,
    });
  });

  it('counts rounds from round.completed while the run is still going', async () => {
    const log = eventLog('run-inflight-01');
    startRun(log, { supervision: false });
    readExecutedRound(log, 0);
    readExecutedRound(log, 1, { complete: false });
    await ingestEvents(db, log.events);
    const run = await db.runs.get(log.runId);
    expect(run).toMatchObject({ status: 'running', rounds: 1, supervision_enabled: false });
    expect(run?.finished_at).toBeUndefined();
  });

  it('never downgrades a finished run back to running when earlier events are replayed', async () => {
    const log = eventLog('run-nodowngrade');
    startRun(log);
    blockedRound(log, 0);
    finishRun(log, 'blocked', 1);
    await ingestEvents(db, log.events);
    // The host re-pushes the opening events (e.g. after a reconnect before their ack landed).
    await ingestEvents(db, log.events.slice(0, 3));
    const run = await db.runs.get(log.runId);
    expect(run?.status).toBe('blocked');
    expect(run?.rounds).toBe(1);
    expect(run?.stored_events).toBe(log.events.length);
  });

  it('keeps a run whose finish arrives before its start consistent once both are in', async () => {
    const log = fullRun('run-outoforder');
    const finished = log.events.slice(-1);
    await ingestEvents(db, finished);
    expect((await db.runs.get(log.runId))?.status).toBe('completed');
    await ingestEvents(db, log.events.slice(0, -1));
    const run = await db.runs.get(log.runId);
    expect(run).toMatchObject({ status: 'completed', spec_name: 'Tidy the notes folder', rounds: 2, stored_events: log.events.length });
  });

  it('keeps runs apart when one batch carries events of several runs', async () => {
    const a = fullRun('run-multi-aaaa');
    const b = eventLog('run-multi-bbbb');
    startRun(b);
    readExecutedRound(b, 0, { complete: false });
    const mixed = [...a.events, ...b.events].sort((x, y) => x.seq - y.seq);
    await ingestEvents(db, mixed);
    expect(await db.runs.count()).toBe(2);
    expect((await db.runs.get(a.runId))?.status).toBe('completed');
    expect((await db.runs.get(b.runId))?.status).toBe('running');
    expect(await db.events.where('run_id').equals(b.runId).count()).toBe(b.events.length);
  });
});

describe('ingestEvents: workflow runs', () => {
  function triage(runId: string) {
    const log = eventLog(runId);
    triageRun(log);
    return log;
  }

  it('summarises a finished workflow run: its workflow, status, outputs, models per node and the rounds of all its agents', async () => {
    const log = triage('run-wf-summary-1');
    await ingestEvents(db, log.events);
    const run = await db.runs.get(log.runId);
    expect(run).toMatchObject({
      run_id: log.runId,
      workflow_id: 'folder-triage',
      spec_name: 'Folder triage',
      status: 'completed',
      rounds: 3,
      models: { student: 'replay-student', teacher: 'replay-teacher' },
      event_count: log.events.length,
      stored_events: log.events.length,
      started_at: log.events[0]?.ts,
      finished_at: log.events.at(-1)?.ts,
    });
    expect(JSON.parse(run?.output ?? 'null')).toEqual({ items: ['notes'] });
    expect(run?.workflow?.nodes).toBe(7);
    expect(nodeCounts(run?.workflow)).toEqual({ done: 8, failed: 1 });
    // Events of nested agents (with an invocation_id) are stored like any others.
    expect(await db.events.where('run_id').equals(log.runId).count()).toBe(log.events.length);
  });

  it('a single output text is the run\'s output as it is', async () => {
    const log = eventLog('run-wf-output-1');
    startWorkflow(log);
    log.add({ type: 'run.finished', status: 'completed', outputs: { report: 'All fine' }, rounds: 0, event_count: 2 });
    await ingestEvents(db, log.events);
    expect((await db.runs.get(log.runId))?.output).toBe('All fine');
  });

  it('says "per node" when the agent nodes of a workflow run use different models', async () => {
    const log = eventLog('run-wf-models-01');
    startWorkflow(log);
    const a = nodeStatus(log, 'classify', 'running', { lineage: item(0) });
    agentRun(log, a, 1);
    const b = nodeStatus(log, 'classify', 'running', { lineage: item(1) });
    agentRun(log, b, 1);
    const other = log.events.findIndex((e) => e.type === 'agent.started' && e.invocation_id === b);
    const started = log.events[other];
    if (started?.type === 'agent.started') log.events[other] = { ...started, models: { student: 'qwen3:8b', teacher: 'replay-teacher' } };
    // Out of order: the agents' starts arrive before the workflow's.
    await ingestEvents(db, log.events.slice(1));
    await ingestEvents(db, log.events.slice(0, 1));
    const run = await db.runs.get(log.runId);
    expect(run).toMatchObject({ spec_name: 'Folder triage', models: { student: 'per node', teacher: 'replay-teacher' }, rounds: 2, status: 'running' });
  });

  it('a workflow run stays waiting while any node waits for a person, also when another node\'s question is answered', async () => {
    const log = eventLog('run-wf-waiting-1');
    startWorkflow(log);
    const ids = [0, 1].map((i) => nodeStatus(log, 'classify', 'running', { lineage: item(i) }));
    const asked = ids.map((id) => {
      agentRun(log, id, 1, { finish: false });
      return agentAsks(log, id, 1);
    });
    for (const i of [0, 1]) nodeStatus(log, 'classify', 'waiting', { lineage: item(i) });
    await ingestEvents(db, log.events);
    expect((await db.runs.get(log.runId))?.status).toBe('waiting');

    const first = asked[0];
    if (!first || !ids[0]) throw new Error('fixture');
    const answered = log.add({ type: 'intervention.answered', round: 1, intervention_id: first.id, answer: { action: 'approve' } });
    log.events[log.events.length - 1] = { ...answered, invocation_id: ids[0] };
    nodeStatus(log, 'classify', 'running', { lineage: item(0) });
    await ingestEvents(db, log.events.slice(-2));
    const run = await db.runs.get(log.runId);
    expect(run?.status).toBe('waiting');
    expect(nodeCounts(run?.workflow)).toEqual({ running: 1, waiting: 1 });

    nodeStatus(log, 'classify', 'done', { lineage: item(0), outputs: { output: 'x' } });
    nodeStatus(log, 'classify', 'running', { lineage: item(1) });
    await ingestEvents(db, log.events.slice(-2));
    expect((await db.runs.get(log.runId))?.status).toBe('running');
  });

  it('a workflow run arriving in reversed pieces, then replayed whole, gives the row of one ordered batch', async () => {
    const log = triage('run-wf-replay-01');
    const reversed = [...log.events].reverse();
    for (let i = 0; i < reversed.length; i += 7) await ingestEvents(db, reversed.slice(i, i + 7));
    await ingestEvents(db, log.events);
    const pieces = await db.runs.get(log.runId);
    const other = new StewardDb(`steward-ingest-test-other-${Math.random().toString(36).slice(2)}`);
    try {
      await ingestEvents(other, log.events);
      expect(pieces).toEqual(await other.runs.get(log.runId));
    } finally {
      await other.delete();
    }
  });
});

function nodeCounts(workflow: RunRow['workflow']): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [status] of Object.values(workflow?.invocations ?? {})) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
