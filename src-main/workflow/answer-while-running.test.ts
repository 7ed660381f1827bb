import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { HUMAN_ACTIONS, type Intervention } from '@shared/contracts/intervention';
import { WorkflowGraph } from '@shared/workflow/document';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { escalatingWithSlowBranch, escalatingWithSlowChild, slowThought, storedIn } from '../../test-support/escalating-workflow';
import { hostPage } from '../../test-support/host-session';
import { createHost } from '../composition/create-host';
import { RunManager } from '../engine/run-manager';
import { openFileLedger } from '../mcp/idempotency-ledger';
import { waitingStoresIn } from '../../test-support/waiting-stores';
import Database from 'better-sqlite3';
import { historyPath } from '../events/history-db';

/** A person answers a workflow node as soon as it asks, while other branches of the run go on. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function startHost(dataDir: string) {
  const host = await createHost({ dataDir, shell: 'browser' });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await host.close();
  };
  cleanups.push(close);
  const page = hostPage(host);
  await page.ok('events.subscribe', {});
  return { ...page, close };
}

/**
 * The same workflow with its agent replaced by a tool node writing the file itself: a protected
 * call no teacher reviews, so it waits for a person's confirmation (approve, decline or stop: no agent proposed it).
 */
function confirmingWithSlowBranch(workspace: string, delayMs: number): WorkflowGraph {
  const graph = escalatingWithSlowBranch(workspace, delayMs);
  return WorkflowGraph.parse({
    ...graph,
    nodes: graph.nodes.map((n) =>
      n.id === 'sharer' ? { id: 'sharer', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [{ name: 'name', type: 'text' }], arguments: { path: join(workspace, '{{name}}'), content: 'shared' } } : n,
    ),
    edges: graph.edges.map((e) => (e.from.node === 'sharer' ? { ...e, from: { node: 'sharer', port: 'text' } } : e)),
  });
}

/**
 * A workflow with a slow branch beside a node that waits for a person, saved in the data folder as
 * the app keeps it: its filesystem server the shipped entry, its workspace a folder registered
 * inside the data folder.
 */
async function runSharing(delayMs: number, build: (workspace: string, delayMs: number) => WorkflowGraph = escalatingWithSlowBranch, library: readonly HostedWorkflowGraph[] = []) {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-live-answer-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const workspace = join(dataDir, 'workspaces', 'share');
  mkdirSync(workspace, { recursive: true });
  const h = await startHost(dataDir);
  await h.ok('workspaces.register', { workspace: { id: 'share', path: workspace } });
  for (const stored of library) await h.ok('workflows.save', { workflow: stored });
  const graph = build(workspace, delayMs);
  const workflow = storedIn(graph, 'share');
  await h.ok('workflows.save', { workflow });
  const { run_id } = await h.ok('workflows.run', { id: workflow.id, inputs: { name: 'shared.md' } });
  await expect.poll(() => h.events.some((e) => e.run_id === run_id && e.type === 'intervention.requested'), { timeout: 20_000 }).toBe(true);
  const { interventions } = await h.ok('interventions.pending', {});
  expect(interventions).toHaveLength(1);
  const question = interventions[0] as Intervention;
  return { ...h, dataDir, workspace, run_id, question };
}

/** Two writes that each wait for a person's confirmation, beside the slow branch. */
/** `escalatingWithSlowBranch` with its slow branch an agent of the test's own (its instructions, tools and script). */
function withSlowAgent(workspace: string, delayMs: number, agent: Record<string, unknown>): WorkflowGraph {
  const graph = escalatingWithSlowBranch(workspace, delayMs);
  return WorkflowGraph.parse({
    ...graph,
    nodes: graph.nodes.map((n) => (n.id === 'slow' ? { id: 'slow', kind: 'agent', task: 'Think about {{name}}.', inputs: [{ name: 'name', type: 'text' }], ...agent } : n)),
  });
}

function twoConfirmations(workspace: string, delayMs: number): WorkflowGraph {
  const graph = confirmingWithSlowBranch(workspace, delayMs);
  const sharer = graph.nodes.find((n) => n.id === 'sharer');
  return WorkflowGraph.parse({
    ...graph,
    nodes: [
      ...graph.nodes.map((n) => (n.kind === 'output' ? { ...n, fields: [...n.fields, { name: 'also', type: 'text' }] } : n)),
      { ...sharer, id: 'second', arguments: { path: join(workspace, 'second.md'), content: 'second' } },
    ],
    edges: [...graph.edges, { from: { node: 'in', port: 'name' }, to: { node: 'second', port: 'name' } }, { from: { node: 'second', port: 'text' }, to: { node: 'out', port: 'also' } }],
  });
}

const ofRun = (events: RunEvent[], runId: string) => events.filter((e) => e.run_id === runId);
const finishedOf = (events: RunEvent[], runId: string) => ofRun(events, runId).find((e) => e.type === 'run.finished');
const nodeDone = (events: RunEvent[], runId: string, node: string) => ofRun(events, runId).some((e) => e.type === 'node.invocation' && e.node === node && e.status === 'done');
const checkpointsIn = (dataDir: string) => waitingStoresIn(dataDir, cleanups).workflowCheckpoints.list();

describe('answering a workflow node while other branches still run', () => {
  it('resumes the node inside the live run: the write happens once, the run completes with both outputs, one question and one answer in the trace, no checkpoint left', async () => {
    const r = await runSharing(4_000);
    expect(nodeDone(r.events, r.run_id, 'slow')).toBe(false);

    expect(await r.ok('interventions.answer', { run_id: r.run_id, intervention_id: r.question.id, answer: { action: 'approve' } })).toEqual({ resumed: true });
    // Answered while `slow` still ran: the run was never restarted.
    expect(nodeDone(r.events, r.run_id, 'slow')).toBe(false);
    expect(finishedOf(r.events, r.run_id)).toBeUndefined();
    // Nothing on disk waits for that question any more.
    expect(checkpointsIn(r.dataDir).flatMap((c) => Object.values(c.waiting))).toEqual([]);
    await expect.poll(() => nodeDone(r.events, r.run_id, 'sharer'), { timeout: 20_000 }).toBe(true);
    expect(nodeDone(r.events, r.run_id, 'slow')).toBe(false);

    await expect.poll(() => finishedOf(r.events, r.run_id), { timeout: 20_000 }).toBeDefined();
    expect(finishedOf(r.events, r.run_id)).toMatchObject({ status: 'completed', outputs: { said: 'shared it', thought: 'thought' } });
    expect(readFileSync(join(r.workspace, 'shared.md'), 'utf8')).toBe('shared');
    const events = ofRun(r.events, r.run_id);
    expect(events.filter((e) => e.type === 'tool.executed' && e.execution.tool === 'write_file')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'intervention.requested').map((e) => e.intervention.id)).toEqual([r.question.id]);
    expect(events.filter((e) => e.type === 'intervention.answered').map((e) => e.intervention_id)).toEqual([r.question.id]);
    expect(events.filter((e) => e.type === 'workflow.started')).toHaveLength(1);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(checkpointsIn(r.dataDir)).toEqual([]);
    expect(await r.ok('interventions.pending', {})).toEqual({ interventions: [] });
  }, 60_000);

  it('of two answers to the same question one wins and the other gets false; an answer the question does not offer is refused by name', async () => {
    const r = await runSharing(4_000, confirmingWithSlowBranch);
    expect(r.question).toMatchObject({ kind: 'confirmation', options: ['approve', 'decline', 'stop'] });
    const notOffered = HUMAN_ACTIONS.find((a) => !r.question.options.includes(a));
    expect(notOffered).toBeDefined();
    const refused = await r.call('interventions.answer', { run_id: r.run_id, intervention_id: r.question.id, answer: { action: notOffered } });
    expect(refused).toMatchObject({ ok: false, error: { message: expect.stringContaining(`"${notOffered}" is not one of the answers this intervention offers`) } });
    // A wrong intervention id is not an answer to this one: refused in words (issue 27), naming what the run waits for.
    const wrong = await r.call('interventions.answer', { run_id: r.run_id, intervention_id: `${r.question.id}-other`, answer: { action: 'approve' } });
    expect(wrong).toMatchObject({ ok: false, error: { code: 'not_found', message: `run ${r.run_id} does not wait for ${r.question.id}-other: it waits for ${r.question.id}` } });
    const [first, second] = await Promise.all([
      r.ok('interventions.answer', { run_id: r.run_id, intervention_id: r.question.id, answer: { action: 'approve' } }),
      r.ok('interventions.answer', { run_id: r.run_id, intervention_id: r.question.id, answer: { action: 'decline' } }),
    ]);
    expect([first.resumed, second.resumed].sort()).toEqual([false, true]);
    expect(finishedOf(r.events, r.run_id)).toBeUndefined();
    await expect.poll(() => finishedOf(r.events, r.run_id), { timeout: 20_000 }).toBeDefined();
    expect(ofRun(r.events, r.run_id).filter((e) => e.type === 'intervention.answered')).toHaveLength(1);
    expect(ofRun(r.events, r.run_id).filter((e) => e.type === 'intervention.answered')[0]).toMatchObject({ answer: { action: 'approve' } });
    expect(finishedOf(r.events, r.run_id)).toMatchObject({ status: 'completed', outputs: { thought: 'thought' } });
    expect(readFileSync(join(r.workspace, 'shared.md'), 'utf8')).toBe('shared');
  }, 60_000);

  it('a host stop after the live answer, before the run ends, does not bring the answered node back after the restart', async () => {
    const r = await runSharing(8_000);
    expect(await r.ok('interventions.answer', { run_id: r.run_id, intervention_id: r.question.id, answer: { action: 'approve' } })).toEqual({ resumed: true });
    await expect.poll(() => nodeDone(r.events, r.run_id, 'sharer'), { timeout: 20_000 }).toBe(true);
    expect(finishedOf(r.events, r.run_id)).toBeUndefined();
    // What a crash at this point would leave: no checkpoint still waiting for the answered node.
    expect(checkpointsIn(r.dataDir).flatMap((c) => Object.values(c.waiting).map((w) => w.intervention.id))).toEqual([]);
    await r.close();

    const again = await startHost(r.dataDir);
    expect(await again.ok('interventions.pending', {})).toEqual({ interventions: [] });
    expect(await again.ok('interventions.answer', { run_id: r.run_id, intervention_id: r.question.id, answer: { action: 'approve' } })).toEqual({ resumed: false });
    // The restarted host sends again what was never acknowledged: each event once, by id.
    const all = [...new Map([...r.events, ...again.events].map((e) => [e.id, e])).values()];
    expect(ofRun(all, r.run_id).filter((e) => e.type === 'node.invocation' && e.node === 'sharer' && e.status === 'running')).toHaveLength(2);
    expect(ofRun(all, r.run_id).filter((e) => e.type === 'tool.executed')).toHaveLength(1);
    expect(readFileSync(join(r.workspace, 'shared.md'), 'utf8')).toBe('shared');
  }, 60_000);

  it('a host stop while a node waits and another branch still runs keeps the question: it is listed after the restart, and the answer completes the run', async () => {
    const r = await runSharing(8_000);
    expect(nodeDone(r.events, r.run_id, 'slow')).toBe(false);
    await r.close();
    // Parked with its question, as a crash there would leave it: not cancelled, nothing recorded for the cut-off branch.
    expect(finishedOf(r.events, r.run_id)).toBeUndefined();
    expect(ofRun(r.events, r.run_id).filter((e) => e.type === 'node.invocation' && e.node === 'slow').map((e) => e.type === 'node.invocation' && e.status)).toEqual(['pending', 'running']);

    const again = await startHost(r.dataDir);
    expect((await again.ok('interventions.pending', {})).interventions.map((i) => i.id)).toEqual([r.question.id]);
    expect(await again.ok('interventions.answer', { run_id: r.run_id, intervention_id: r.question.id, answer: { action: 'approve' } })).toEqual({ resumed: true });
    await expect.poll(() => finishedOf(again.events, r.run_id), { timeout: 30_000 }).toBeDefined();
    expect(finishedOf(again.events, r.run_id)).toMatchObject({ status: 'completed', outputs: { said: 'shared it', thought: 'thought' } });
    const all = [...new Map([...r.events, ...again.events].map((e) => [e.id, e])).values()];
    expect(ofRun(all, r.run_id).filter((e) => e.type === 'tool.executed')).toHaveLength(1);
    // The trace says in words why the cut-off branch ran twice.
    expect(ofRun(all, r.run_id).filter((e) => e.type === 'run.notice').map((e) => e.type === 'run.notice' && e.message)).toEqual([
      'The host stopped while this run waited for you. What was still running (slow) was stopped and starts again once you answer; a tool call it already made is not made again.',
    ]);
    expect(ofRun(all, r.run_id).map((e) => e.seq)).toEqual(ofRun(all, r.run_id).map((_, i) => i));
    expect(readFileSync(join(r.workspace, 'shared.md'), 'utf8')).toBe('shared');
    expect(checkpointsIn(r.dataDir)).toEqual([]);
  }, 90_000);

  it('a host stop while a node waits and a workflow node\'s child run still goes on parks the run too: the child stops and is closed as interrupted, and on the answer starts again as a new run that completes', async () => {
    const r = await runSharing(8_000, escalatingWithSlowChild, [slowThought(8_000, 'pondered')]);
    const childId = `${r.run_id}:slow`;
    await expect.poll(() => r.events.some((e) => e.run_id === childId && e.type === 'workflow.started'), { timeout: 20_000 }).toBe(true);
    await r.close();
    expect(finishedOf(r.events, r.run_id)).toBeUndefined();

    const again = await startHost(r.dataDir);
    expect((await again.ok('interventions.pending', {})).interventions.map((i) => i.id)).toEqual([r.question.id]);
    const runEvents = async (id: string) => (await again.ok('runs.events', { run_id: id })).events;
    // The first start of the child: what it did, why it stopped, and its end as the restart found it.
    const first = await runEvents(childId);
    expect(first.filter((e) => e.type === 'run.notice').map((e) => e.type === 'run.notice' && e.message)).toEqual([
      'The host stopped while a run above this one waited for a person, and this run stopped with it. When that run resumes, the node that started this one starts again; a tool call already made is not made again.',
    ]);
    expect(first.at(-1)).toMatchObject({ type: 'run.finished', status: 'interrupted' });

    expect(await again.ok('interventions.answer', { run_id: r.run_id, intervention_id: r.question.id, answer: { action: 'approve' } })).toEqual({ resumed: true });
    await expect.poll(() => finishedOf(again.events, r.run_id), { timeout: 40_000 }).toBeDefined();
    expect(finishedOf(again.events, r.run_id)).toMatchObject({ status: 'completed', outputs: { said: 'shared it', thought: 'thought' } });
    const all = [...new Map([...r.events, ...again.events].map((e) => [e.id, e])).values()];
    // The parent names both starts of its child; the second is a run of its own, whole from its first event.
    expect(ofRun(all, r.run_id).flatMap((e) => (e.type === 'subworkflow.started' ? [e.child_run_id] : []))).toEqual([childId, `${childId}~2`]);
    // Its report ends the first start as the history does, before the second starts.
    expect(ofRun(all, r.run_id).flatMap((e) => (e.type === 'subworkflow.finished' ? [[e.child_run_id, e.status]] : []))).toEqual([
      [childId, 'interrupted'],
      [`${childId}~2`, 'completed'],
    ]);
    expect(ofRun(all, r.run_id).map((e) => e.seq)).toEqual(ofRun(all, r.run_id).map((_, i) => i));
    const second = await runEvents(`${childId}~2`);
    expect(second.map((e) => e.seq)).toEqual(second.map((_, i) => i));
    expect(second[0]).toMatchObject({ type: 'workflow.started', parent: { run_id: r.run_id, invocation_id: 'slow' } });
    expect(second.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    // The first start never reached its tool call; the second made it once.
    expect([...first, ...second].filter((e) => e.type === 'tool.executed' && e.execution.tool === 'create_directory')).toHaveLength(1);
    expect(existsSync(join(r.workspace, 'pondered'))).toBe(true);
    // Nothing the first start recorded was touched by the second.
    expect(await runEvents(childId)).toEqual(first);
    expect(readFileSync(join(r.workspace, 'shared.md'), 'utf8')).toBe('shared');
    expect(await again.ok('interventions.pending', {})).toEqual({ interventions: [] });
    expect(checkpointsIn(r.dataDir)).toEqual([]);
    // A replay of the parent does not run the child again: it names the child run to replay, the start that completed.
    // (The replay waits at the recorded question meanwhile, as the recorded run did.)
    const { run_id: replayId } = await again.ok('runs.replay', { run_id: r.run_id, tools: 'dry_run' });
    const slowFailed = () => ofRun(again.events, replayId).find((e) => e.type === 'node.invocation' && e.node === 'slow' && e.status === 'failed');
    await expect.poll(slowFailed, { timeout: 20_000 }).toBeDefined();
    expect(JSON.stringify(slowFailed())).toContain(`replay that run on its own (steward replay ${childId}~2)`);
  }, 120_000);
});

describe('a child run started again after a host stop', () => {
  it('keeps its first start\'s keys: a tool call that start made is not made again; its kept result is given again, and the run completes', async () => {
    const r = await runSharing(8_000, escalatingWithSlowChild, [slowThought(8_000, 'made-first', true)]);
    const childId = `${r.run_id}:slow`;
    await expect.poll(() => r.events.some((e) => e.run_id === childId && e.type === 'tool.executed'), { timeout: 20_000 }).toBe(true);
    await r.close();
    // Made by the first start; taken away here, so a second call would show.
    expect(existsSync(join(r.workspace, 'made-first'))).toBe(true);
    rmSync(join(r.workspace, 'made-first'), { recursive: true });
    const again = await startHost(r.dataDir);
    expect(await again.ok('interventions.answer', { run_id: r.run_id, intervention_id: r.question.id, answer: { action: 'approve' } })).toEqual({ resumed: true });
    await expect.poll(() => finishedOf(again.events, r.run_id), { timeout: 40_000 }).toBeDefined();
    const runEvents = async (id: string) => (await again.ok('runs.events', { run_id: id })).events;
    const [first, second] = [await runEvents(childId), await runEvents(`${childId}~2`)];
    // The second start's same call is authorized as one made before: the result the first got is given again.
    const [made] = first.filter((e) => e.type === 'tool.executed');
    const [given] = second.filter((e) => e.type === 'tool.executed');
    expect(made?.type === 'tool.executed' && given?.type === 'tool.executed' && given.execution).toMatchObject({
      idempotency_key: made?.type === 'tool.executed' ? made.execution.idempotency_key : '',
      content: made?.type === 'tool.executed' ? made.execution.content : '',
      duration_ms: 0,
    });
    expect(second.some((e) => e.type === 'round.completed' && e.record.authorization?.ok === true && e.record.authorization.recorded_result === true)).toBe(true);
    expect(second.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(finishedOf(again.events, r.run_id)).toMatchObject({ status: 'completed', outputs: { said: 'shared it', thought: 'thought' } });
    // The call was never made again (its key derives from the first start's run id, as the second's does).
    expect(existsSync(join(r.workspace, 'made-first'))).toBe(false);
  }, 120_000);

  it('a call made before the stop whose result the history did not keep whole is refused as a repeat, and the run fails in words', async () => {
    const r = await runSharing(8_000, escalatingWithSlowChild, [slowThought(8_000, 'made-first', true)]);
    const childId = `${r.run_id}:slow`;
    await expect.poll(() => r.events.some((e) => e.run_id === childId && e.type === 'tool.executed'), { timeout: 20_000 }).toBe(true);
    await r.close();
    rmSync(join(r.workspace, 'made-first'), { recursive: true });
    // What a result too large to record whole leaves: the key executed, nothing kept with it.
    const db = new Database(historyPath(r.dataDir));
    db.prepare('UPDATE ledger SET result_run = NULL').run();
    db.close();
    const again = await startHost(r.dataDir);
    expect(await again.ok('interventions.answer', { run_id: r.run_id, intervention_id: r.question.id, answer: { action: 'approve' } })).toEqual({ resumed: true });
    await expect.poll(() => finishedOf(again.events, r.run_id), { timeout: 40_000 }).toBeDefined();
    const second = (await again.ok('runs.events', { run_id: `${childId}~2` })).events;
    const refused = second.find((e) => e.type === 'round.completed' && e.record.outcome === 'blocked');
    expect(refused?.type === 'round.completed' && refused.record.reason).toBe('duplicate_execution');
    // Fails closed, in words: never a plain success, never the call again.
    expect(finishedOf(again.events, r.run_id)).toMatchObject({ status: 'failed', message: expect.stringContaining('was already made, or started before a stop cut it off: it is never made twice') });
    expect(existsSync(join(r.workspace, 'made-first'))).toBe(false);
  }, 120_000);
});

describe('a host stop while an agent node\'s workflow tool call runs beside a wait', () => {
  it('halts the tool\'s child run, which the restart closes as interrupted; the agent started again is refused the same call in words, never making it twice', async () => {
    const accept = { json: { verdict: 'accept', reason_codes: [], explanation: 'Thinking is on task.' } };
    const withToolCall = (workspace: string, delayMs: number) =>
      withSlowAgent(workspace, delayMs, {
        instructions: 'Think with your tool, then complete.',
        servers: [],
        workflow_tools: ['slow-thought'],
        supervision: { enabled: true, phase: 3 },
        script: {
          student: [
            { json: { decision_type: 'tool_call', tool_name: 'workflow_slow-thought', arguments: { name: 'x' } } },
            { json: { decision_type: 'complete', output: 'thought' } },
          ],
          teacher: [accept, accept, accept, accept],
        },
      });
    const r = await runSharing(8_000, withToolCall, [slowThought(8_000)]);
    const childOf = (events: RunEvent[]) => ofRun(events, r.run_id).find((e) => e.type === 'subworkflow.started')?.child_run_id;
    await expect.poll(() => childOf(r.events), { timeout: 20_000 }).toBeDefined();
    const childId = childOf(r.events) ?? '';
    await r.close();

    const again = await startHost(r.dataDir);
    const first = (await again.ok('runs.events', { run_id: childId })).events;
    expect(first.filter((e) => e.type === 'run.notice').map((e) => e.type === 'run.notice' && e.message)).toEqual([
      'The host stopped while a run above this one waited for a person, and this run stopped with it. When that run resumes, the node that started this one starts again; a tool call already made is not made again.',
    ]);
    expect(first.at(-1)).toMatchObject({ type: 'run.finished', status: 'interrupted' });
    expect(await again.ok('interventions.answer', { run_id: r.run_id, intervention_id: r.question.id, answer: { action: 'approve' } })).toEqual({ resumed: true });
    await expect.poll(() => finishedOf(again.events, r.run_id), { timeout: 40_000 }).toBeDefined();
    const all = [...new Map([...r.events, ...again.events].map((e) => [e.id, e])).values()];
    // The agent started again proposes the same call, which the stop cut off (what it gave back then, the halt, is kept as no result): refused, in words, and the run fails closed.
    expect(finishedOf(again.events, r.run_id)).toMatchObject({ status: 'failed', message: expect.stringContaining('was already made, or started before a stop cut it off: it is never made twice') });
    // The call was cut off by the stop: never made again, so no second child run.
    expect(ofRun(all, r.run_id).flatMap((e) => (e.type === 'subworkflow.started' ? [e.child_run_id] : []))).toEqual([childId]);
    expect(ofRun(all, r.run_id).flatMap((e) => (e.type === 'subworkflow.finished' ? [[e.child_run_id, e.status]] : []))).toEqual([[childId, 'interrupted']]);
    expect(ofRun(all, r.run_id).some((e) => e.type === 'round.completed' && e.record.reason === 'duplicate_execution')).toBe(true);
  }, 120_000);
});

describe('the checkpoint of a run answered live', () => {
  it('keeps the other waiting node and drops the answered one, which is kept as running with its own inputs', async () => {
    const data = mkdtempSync(join(tmpdir(), 'steward-live-answer-'));
    cleanups.push(() => rmSync(data, { recursive: true, force: true }));
    const workspace = join(data, 'ws');
    mkdirSync(workspace);
    const events: RunEvent[] = [];
    const stores = waitingStoresIn(data, cleanups);
    const store = stores.workflowCheckpoints;
    const manager = new RunManager({
      ledger: openFileLedger(join(data, 'ledger.jsonl')),
      onEvent: (e) => events.push(e),
      baseDir: data,
      ...stores,
    });
    cleanups.push(() => manager.closeAll());
    // The slow branch must outlast both writes' questions (each starts the filesystem server): 8 s, as a loaded CI machine once took more than 4.
    const { run_id } = manager.startWorkflow({ graph: twoConfirmations(workspace, 8_000), specDir: data, workspace }, { name: 'shared.md' }, { allowed_hosts: [] });
    await expect.poll(() => manager.pending().length, { timeout: 20_000 }).toBe(2);
    const first = manager.pending().find((i) => i.id.includes(':sharer'));
    expect(first).toBeDefined();
    expect(manager.answer(run_id, first?.id ?? '', { action: 'approve' })).toBe(true);

    const [kept] = store.list();
    expect(Object.values(kept?.waiting ?? {}).map((w) => w.intervention.id)).toEqual(manager.pending().map((i) => i.id));
    expect(manager.pending().map((i) => i.id)).not.toContain(first?.id);
    expect(kept?.running.find((i) => i.node === 'sharer')).toMatchObject({ inputs: { name: 'shared.md' } });
    // The trace was written first: the checkpoint's journal position is past the answered node's resume.
    const resumed = events.filter((e) => e.type === 'node.invocation' && e.node === 'sharer' && e.status === 'running').at(-1);
    expect(kept?.next_seq).toBeGreaterThan(resumed?.seq ?? Infinity);

    const second = manager.pending()[0];
    expect(manager.answer(run_id, second?.id ?? '', { action: 'decline' })).toBe(true);
    await expect.poll(() => events.some((e) => e.type === 'run.finished'), { timeout: 20_000 }).toBe(true);
    // The person declined the second call: the run ends declined (issue 28), not failed.
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'declined' });
    expect(readFileSync(join(workspace, 'shared.md'), 'utf8')).toBe('shared');
    expect(existsSync(join(workspace, 'second.md'))).toBe(false);
    expect(store.list()).toEqual([]);
  }, 60_000);
});

describe('an agent node a host stop cut off after its tool call, beside a wait', () => {
  it('starts again and is given the result its call got the first time, without calling again; the run completes', async () => {
    const readThenThink = (workspace: string, delayMs: number) => {
      writeFileSync(join(workspace, 'notes.md'), 'the notes as they were');
      return withSlowAgent(workspace, delayMs, {
        instructions: 'Read the notes, then think.',
        script: {
          student: [
            { json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: join(workspace, 'notes.md') } } },
            { json: { decision_type: 'complete', output: 'thought' }, delay_ms: delayMs },
          ],
        },
      });
    };
    const r = await runSharing(8_000, readThenThink);
    const readBy = (events: RunEvent[]) => ofRun(events, r.run_id).filter((e) => e.type === 'tool.executed' && e.invocation_id === 'slow');
    await expect.poll(() => readBy(r.events).length, { timeout: 20_000 }).toBe(1);
    await r.close();
    // Changed while the app was closed: a second call would read this.
    writeFileSync(join(r.workspace, 'notes.md'), 'the notes changed since');

    const again = await startHost(r.dataDir);
    expect(await again.ok('interventions.answer', { run_id: r.run_id, intervention_id: r.question.id, answer: { action: 'approve' } })).toEqual({ resumed: true });
    await expect.poll(() => finishedOf(again.events, r.run_id), { timeout: 40_000 }).toBeDefined();
    expect(finishedOf(again.events, r.run_id)).toMatchObject({ status: 'completed', outputs: { said: 'shared it', thought: 'thought' } });
    // The new host's page gets the run's whole history: the first start's call, then the second's.
    const [made, given] = readBy(again.events);
    expect(readBy(again.events)).toHaveLength(2);
    expect(made).toEqual(readBy(r.events)[0]);
    // The same call (the same key), given what it got the first time, and not made again.
    expect(made?.type === 'tool.executed' && made.execution.content).toContain('the notes as they were');
    expect(given?.type === 'tool.executed' && given.execution).toMatchObject({
      idempotency_key: made?.type === 'tool.executed' ? made.execution.idempotency_key : '',
      content: made?.type === 'tool.executed' ? made.execution.content : '',
      duration_ms: 0,
    });
    const authorized = ofRun(again.events, r.run_id).findLast((e) => e.type === 'round.completed' && e.invocation_id === 'slow' && e.record.execution !== undefined);
    expect(authorized?.type === 'round.completed' && authorized.record.authorization).toEqual({ ok: true, idempotency_key: made?.type === 'tool.executed' ? made.execution.idempotency_key : '', recorded_result: true });
  }, 120_000);
});
