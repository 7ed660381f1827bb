import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import { WorkflowGraph, type WorkflowGraphInput } from '@shared/workflow/document';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { escalatingWithSlowBranch, escalatingWorkflow } from '../../test-support/escalating-workflow';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { LOCAL, settings, VERDICTS } from '@shared/supervisor/testing/fixtures';
import { runWorkflow, type RunWorkflowOptions } from './run-workflow';
import { WorkflowCheckpoint } from './workflow-checkpoint';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const accept = { json: { verdict: 'accept', reason_codes: [], explanation: 'A new report file; nothing is overwritten.' } };

/** list → iterate → read each file → an agent classifies → assert → record → collect → report → reviewed write → output. */
function triage(category: string, extra: Partial<WorkflowGraphInput> = {}): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'triage',
    name: 'Triage',
    servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'dir', type: 'text' }] },
      { id: 'list', kind: 'tool', server: 'fs', tool: 'directory_tree', inputs: [{ name: 'dir', type: 'text' }], arguments: { path: '{{dir}}' } },
      { id: 'files', kind: 'iterate', concurrency: 2 },
      { id: 'read', kind: 'tool', server: 'fs', tool: 'read_text_file', inputs: [{ name: 'dir', type: 'text' }, { name: 'entry' }], arguments: { path: '{{dir}}/{{entry.name}}' } },
      {
        id: 'classify',
        kind: 'agent',
        instructions: 'Answer with one category word.',
        task: 'Classify {{entry.name}}:\n{{content}}',
        inputs: [{ name: 'entry' }, { name: 'content', type: 'text' }],
        servers: [],
        limits: { max_rounds: 2 },
        script: { student: [{ json: { decision_type: 'complete', output: category } }] },
      },
      { id: 'check', kind: 'assert', checks: [{ check: 'regex', pattern: '^(notes|tasks)$' }] },
      { id: 'record', kind: 'template', format: 'json', inputs: [{ name: 'entry' }, { name: 'category', type: 'text' }], template: { file: '{{entry.name}}', category: '{{category}}' } },
      { id: 'gather', kind: 'collect' },
      { id: 'report', kind: 'template', inputs: [{ name: 'files', type: 'list' }], template: '# Triage\n{{files}}\n' },
      {
        id: 'write',
        kind: 'tool',
        server: 'fs',
        tool: 'write_file',
        inputs: [{ name: 'dir', type: 'text' }, { name: 'report', type: 'text' }],
        arguments: { path: '{{dir}}/triage-report.md', content: '{{report}}' },
        review: { teacher: { provider: 'script' }, script: { teacher: [accept] } },
      },
      { id: 'out', kind: 'output', fields: [{ name: 'files', type: 'list' }, { name: 'written', type: 'text' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'dir' }, to: { node: 'list', port: 'dir' } },
      { from: { node: 'list', port: 'result' }, to: { node: 'files', port: 'list' } },
      { from: { node: 'in', port: 'dir' }, to: { node: 'read', port: 'dir' } },
      { from: { node: 'files', port: 'item' }, to: { node: 'read', port: 'entry' } },
      { from: { node: 'files', port: 'item' }, to: { node: 'classify', port: 'entry' } },
      { from: { node: 'read', port: 'text' }, to: { node: 'classify', port: 'content' } },
      { from: { node: 'classify', port: 'output' }, to: { node: 'check', port: 'value' } },
      { from: { node: 'files', port: 'item' }, to: { node: 'record', port: 'entry' } },
      { from: { node: 'check', port: 'value' }, to: { node: 'record', port: 'category' } },
      { from: { node: 'record', port: 'output' }, to: { node: 'gather', port: 'item' } },
      { from: { node: 'gather', port: 'list' }, to: { node: 'report', port: 'files' } },
      { from: { node: 'in', port: 'dir' }, to: { node: 'write', port: 'dir' } },
      { from: { node: 'report', port: 'output' }, to: { node: 'write', port: 'report' } },
      { from: { node: 'gather', port: 'list' }, to: { node: 'out', port: 'files' } },
      { from: { node: 'write', port: 'text' }, to: { node: 'out', port: 'written' } },
    ],
    ...extra,
  });
}

function workspace() {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  return ws;
}

async function run(graph: WorkflowGraph, ws: { dir: string; workspace: string }, extra: Partial<RunWorkflowOptions> = {}) {
  const events: RunEvent[] = [];
  const result = await runWorkflow({ graph, specDir: ws.dir, workspace: ws.workspace, inputs: { dir: ws.workspace }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), ...extra });
  return { result, events };
}

function oneJournal(events: RunEvent[], firstSeq = 0) {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => firstSeq + i));
  for (const e of events) expect(RunEvent.safeParse(e).success).toBe(true);
}

describe('runWorkflow', () => {
  it('folder triage: each file is read and classified in its own lineage, collected in order, and the reviewed report is written', async () => {
    const ws = workspace();
    const { result, events } = await run(triage('notes'), ws);
    expect(result.message).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(result.outputs.files).toEqual([
      { file: 'ideas.md', category: 'notes' },
      { file: 'meeting-notes.md', category: 'notes' },
    ]);
    expect(readFileSync(join(ws.workspace, 'triage-report.md'), 'utf8')).toContain('meeting-notes.md');
    expect(result.invocations.find((i) => i.id === 'classify[files=1]')).toMatchObject({ node: 'classify', lineage: [{ iterate: 'files', index: 1 }], status: 'done' });
    expect(result.invocations.every((i) => i.status === 'done')).toBe(true);
    oneJournal(events);
    expect(events[0]?.type).toBe('workflow.started');
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed', event_count: events.length });
    expect(events.filter((e) => e.type === 'run.started' || e.type === 'run.finished')).toHaveLength(1);
    // Every node's events carry its invocation; the agents' own starts are agent.started.
    for (const e of events.filter((x) => x.type !== 'workflow.started' && x.type !== 'run.finished')) expect(e.invocation_id).toBeDefined();
    expect(events.filter((e) => e.type === 'agent.started').map((e) => e.invocation_id).sort()).toEqual(['classify[files=0]', 'classify[files=1]']);
    // The frozen snapshot every tool node validated against is in the trace once, by its hash.
    const snapshots = events.filter((e) => e.type === 'tools.snapshot' && !e.invocation_id?.startsWith('classify'));
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]?.type === 'tools.snapshot' && snapshots[0].tools.map((t) => t.name)).toContain('write_file');
    const review = events.find((e) => e.type === 'review.decided' && e.invocation_id === 'write');
    expect(review?.type === 'review.decided' && review.review.rule).toBe('protected_effect');
  });

  it('a failed assert fails its item and skips what needs it; nothing is written from a bad category', async () => {
    const ws = workspace();
    const { result } = await run(triage('weird'), ws);
    const checks = result.invocations.filter((i) => i.node === 'check');
    expect(checks.map((c) => c.status)).toEqual(['failed', 'failed']);
    expect(checks[0]?.failure?.code).toBe('assert_failed');
    expect(result.invocations.filter((i) => i.node === 'record').every((i) => i.status === 'skipped')).toBe(true);
  });

  it('cancel mid-run aborts the running invocations: none is left running and the run ends cancelled', async () => {
    const ws = workspace();
    const graph = triage('notes');
    const classify = graph.nodes.find((n) => n.kind === 'agent');
    if (classify?.kind === 'agent') classify.script = { latency_ms: 0, student: [{ json: { decision_type: 'complete', output: 'notes' }, delay_ms: 30_000 }], teacher: [], committee: [], monitor: [] };
    const controller = new AbortController();
    const started = Date.now();
    const events: RunEvent[] = [];
    const { result } = await run(graph, ws, {
      signal: controller.signal,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'agent.started') controller.abort();
      },
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.status).toBe('cancelled');
    expect(result.invocations.some((i) => i.status === 'running' || i.status === 'pending')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'cancelled' });
    expect(existsSync(join(ws.workspace, 'triage-report.md'))).toBe(false);
  });

  it('graph problems stop the run before anything starts', async () => {
    const ws = workspace();
    const graph = triage('notes');
    graph.edges = graph.edges.filter((e) => !(e.to.node === 'read' && e.to.port === 'entry'));
    const { result, events } = await run(graph, ws);
    expect(result.setup_error).toMatch(/entry/);
    expect(events).toEqual([]);
  });

  it('a missing required input stops the run by name before anything starts', async () => {
    const ws = workspace();
    const { result, events } = await run(triage('notes'), ws, { inputs: {} });
    expect(result.setup_error).toMatch(/input dir is required/);
    expect(events).toEqual([]);
  });
});

describe('a workflow whose agent waits for a person', () => {
  it('ends waiting with a durable checkpoint; a second run resumes it with the answer and completes', async () => {
    const ws = workspace();
    const persisted: WorkflowCheckpoint[] = [];
    const first = await run(escalatingWorkflow(ws.workspace), ws, { inputs: { name: 'shared.md' }, persistWaiting: (c) => persisted.push(c) });
    expect(first.result.status).toBe('waiting');
    expect(first.result.interventions?.[0]).toMatchObject({ invocation_id: 'sharer', intervention: { kind: 'escalation' } });
    expect(first.result.invocations.find((i) => i.id === 'sharer')?.status).toBe('waiting');
    expect(first.events.some((e) => e.type === 'run.finished')).toBe(false);
    expect(existsSync(join(ws.workspace, 'shared.md'))).toBe(false);
    expect(persisted).toHaveLength(1);

    // As it comes back from disk after a host restart.
    const checkpoint = WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(persisted[0])));
    const second = await run(escalatingWorkflow(ws.workspace), ws, { resume: { checkpoint, answer: { action: 'approve' } } });
    expect(second.result.message).toBeUndefined();
    expect(second.result.status).toBe('completed');
    expect(second.result.run_id).toBe(first.result.run_id);
    expect(second.result.outputs).toEqual({ said: 'shared it' });
    expect(readFileSync(join(ws.workspace, 'shared.md'), 'utf8')).toBe('shared');
    oneJournal([...first.events, ...second.events]);
    expect(second.events.find((e) => e.type === 'intervention.answered')?.invocation_id).toBe('sharer');
  });
});

describe('a run whose keys derive from an id other than its own (a child started again after a host stop)', () => {
  it('records under its run id, claims every call under the key id, keeps the key id in its checkpoint, and goes on with it after a resume', async () => {
    const ws = workspace();
    const share = escalatingWorkflow(ws.workspace);
    // A read before the wait, beside the agent that waits: both claim keys.
    const graph = WorkflowGraph.parse({
      ...share,
      nodes: [
        ...share.nodes.filter((n) => n.kind !== 'output'),
        { id: 'look', kind: 'tool', server: 'fs', tool: 'list_directory', inputs: [{ name: 'name', type: 'text' }], arguments: { path: ws.workspace } },
        { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }, { name: 'listed', type: 'text' }] },
      ],
      edges: [...share.edges, { from: { node: 'in', port: 'name' }, to: { node: 'look', port: 'name' } }, { from: { node: 'look', port: 'text' }, to: { node: 'out', port: 'listed' } }],
    });
    const ledger = createMemoryLedger();
    const claimedBy: string[] = [];
    const watched = { ...ledger, state: ledger.state.bind(ledger), finish: ledger.finish.bind(ledger), begin: (key: string, meta: Parameters<typeof ledger.begin>[1]) => (claimedBy.push(meta.run_id), ledger.begin(key, meta)) };
    const persisted: WorkflowCheckpoint[] = [];
    const ids = { runId: 'parent-run:slow~2', keyRunId: 'parent-run:slow' };
    const first = await run(graph, ws, { ...ids, ledger: watched, inputs: { name: 'shared.md' }, persistWaiting: (c) => persisted.push(c) });
    expect(first.result.status).toBe('waiting');
    expect(new Set(first.events.map((e) => e.run_id))).toEqual(new Set([ids.runId]));
    expect(claimedBy).toEqual(['parent-run:slow:look']);
    const checkpoint = WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(persisted.at(-1))));
    expect(checkpoint).toMatchObject({ run_id: ids.runId, key_run_id: ids.keyRunId });

    // Resumed with nothing but the checkpoint: the key id comes from it.
    const second = await run(graph, ws, { ledger: watched, resume: { checkpoint, answer: { action: 'approve' } } });
    expect(second.result.status).toBe('completed');
    expect(new Set(second.events.map((e) => e.run_id))).toEqual(new Set([ids.runId]));
    expect(claimedBy).toEqual(['parent-run:slow:look', 'parent-run:slow:sharer']);
    oneJournal([...first.events, ...second.events]);
  });
});

describe('a host failure during a workflow run', () => {
  it('an event sink that throws stops the run with a failure, never an unhandled rejection', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    let count = 0;
    const result = await runWorkflow({
      graph: triage('notes'),
      specDir: ws.dir,
      workspace: ws.workspace,
      inputs: { dir: ws.workspace },
      ledger: createMemoryLedger(),
      onEvent: (e) => {
        count += 1;
        if (e.type === 'agent.started') throw new Error('the journal is full');
      },
    });
    expect(count).toBeGreaterThan(1);
    expect(result.status).toBe('failed');
    expect(result.message).toMatch(/the journal is full/);
  });
});

describe('a protected tool node waiting for a person\'s confirmation (the app asks in the run view)', () => {
  function saving(ws: { workspace: string }): WorkflowGraph {
    return WorkflowGraph.parse({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'save',
      name: 'Save',
      servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }] },
        { id: 'save', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [{ name: 'text', type: 'text' }], arguments: { path: join(ws.workspace, 'saved.md'), content: '{{text}}' } },
        { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'text' }, to: { node: 'save', port: 'text' } },
        { from: { node: 'save', port: 'text' }, to: { node: 'out', port: 'said' } },
      ],
    });
  }

  async function parked(ws: { dir: string; workspace: string }) {
    const first = await run(saving(ws), ws, { inputs: { text: 'hello' }, confirm: async () => 'pending' });
    expect(first.result.status).toBe('waiting');
    // No agent proposed the call, so nobody can try again: run it, don't run it, or stop the run.
    expect(first.result.interventions?.[0]?.intervention).toMatchObject({ kind: 'confirmation', decision: { tool_name: 'write_file', arguments: { content: 'hello' } }, options: ['approve', 'decline', 'stop'] });
    expect(first.events.find((e) => e.type === 'intervention.requested')?.invocation_id).toBe('save');
    expect(existsSync(join(ws.workspace, 'saved.md'))).toBe(false);
    const checkpoint = WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(first.result.checkpoint)));
    return { first, checkpoint };
  }

  it('waits without running it; approved, the exact call it asked about runs and the run completes', async () => {
    const ws = workspace();
    const { first, checkpoint } = await parked(ws);
    // The resumed run keeps the folders it started with, whatever the caller passes this time.
    const elsewhere = workspace();
    const second = await run(saving(ws), elsewhere, { resume: { checkpoint, answer: { action: 'approve' } } });
    expect(second.result.message).toBeUndefined();
    expect(second.result.status).toBe('completed');
    expect(readFileSync(join(ws.workspace, 'saved.md'), 'utf8')).toBe('hello');
    const selected = second.events.find((e) => e.type === 'decision.selected');
    expect(selected?.type === 'decision.selected' && selected.source).toBe('human');
    oneJournal([...first.events, ...second.events]);
  });

  it('"Don\'t run it": nothing is written, the node ends declined and the run\'s outcome is the person\'s decision in words, with their note', async () => {
    const ws = workspace();
    const { checkpoint } = await parked(ws);
    const second = await run(saving(ws), ws, { resume: { checkpoint, answer: { action: 'decline', note: 'not now' } } });
    // What the person decided, not a failure of the system (issue 28).
    expect(second.result.status).toBe('declined');
    expect(second.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'declined' });
    expect(second.result.message).toBe('you declined fs/write_file: not now');
    expect(second.result.invocations.find((i) => i.id === 'save')).toMatchObject({ status: 'failed', failure: { code: 'declined_by_person', message: 'you declined fs/write_file: not now' } });
    expect(existsSync(join(ws.workspace, 'saved.md'))).toBe(false);
  });

  it('a node parked before "Don\'t run it" existed (it offered reject) takes reject as declining: nobody is left to try again', async () => {
    const ws = workspace();
    const { checkpoint } = await parked(ws);
    const old = { ...checkpoint, waiting: Object.fromEntries(Object.entries(checkpoint.waiting).map(([id, w]) => [id, { ...w, intervention: { ...w.intervention, options: ['approve' as const, 'reject' as const] } }])) };
    const second = await run(saving(ws), ws, { resume: { checkpoint: old, answer: { action: 'reject' } } });
    expect(second.result.message).toBe('you declined fs/write_file');
    expect(existsSync(join(ws.workspace, 'saved.md'))).toBe(false);
  });

  it('"Stop the run": nothing is written and the whole run ends stopped by the person (not cancelled, not failed), saying where', async () => {
    const ws = workspace();
    const { checkpoint } = await parked(ws);
    const second = await run(saving(ws), ws, { resume: { checkpoint, answer: { action: 'stop' } } });
    expect(second.result.status).toBe('stopped');
    expect(second.result.message).toBe('you stopped the run at save (fs/write_file)');
    expect(second.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'stopped', message: 'you stopped the run at save (fs/write_file)' });
    expect(existsSync(join(ws.workspace, 'saved.md'))).toBe(false);
  });

  it('a supervised run leaves a declined call as the person decided it: no supervisor is asked to retry or skip it', async () => {
    const ws = workspace();
    let asked = 0;
    const supervision = { settings: settings(), supervisor: { identity: LOCAL, decide: async () => ((asked += 1), { verdict: VERDICTS.skip, cost_usd: 0 }) } };
    const first = await run(saving(ws), ws, { inputs: { text: 'hello' }, confirm: async () => 'pending', supervision });
    const checkpoint = WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(first.result.checkpoint)));
    const second = await run(saving(ws), ws, { resume: { checkpoint, answer: { action: 'decline', note: 'not today' } }, supervision });
    expect(asked).toBe(0);
    expect(second.events.some((e) => e.type === 'supervisor.escalated')).toBe(false);
    expect(second.result.status).toBe('declined');
    expect(second.result.message).toBe('you declined fs/write_file: not today');
  });
});

describe('what a workflow run stores', () => {
  it('values in node.invocation and run.finished events keep 16 KiB per text with their full size; the run\'s outputs are whole', async () => {
    const ws = workspace();
    const big = 'line of notes\n'.repeat(3000);
    writeFileSync(join(ws.workspace, 'big.md'), big);
    const graph = WorkflowGraph.parse({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'big',
      name: 'Big',
      servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'path', type: 'text' }] },
        { id: 'read', kind: 'tool', server: 'fs', tool: 'read_text_file', inputs: [{ name: 'path', type: 'text' }], arguments: { path: '{{path}}' } },
        { id: 'out', kind: 'output', fields: [{ name: 'text', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'path' }, to: { node: 'read', port: 'path' } },
        { from: { node: 'read', port: 'text' }, to: { node: 'out', port: 'text' } },
      ],
    });
    const { result, events } = await run(graph, ws, { inputs: { path: join(ws.workspace, 'big.md') } });
    expect(result.status).toBe('completed');
    expect(result.outputs.text).toBe(big);
    const done = events.find((e) => e.type === 'node.invocation' && e.node === 'read' && e.status === 'done');
    expect(done?.trimmed).toContainEqual({ path: 'outputs.text', original_bytes: big.length });
    const finished = events.at(-1);
    expect(finished?.type === 'run.finished' && String(finished.outputs?.text).length).toBeLessThan(17_000);
    expect(finished?.trimmed).toContainEqual({ path: 'outputs.text', original_bytes: big.length });
  });
});

describe('a node waiting while others still run', () => {
  it('is kept on disk at once; after a host stop there, the answer resumes it and the cut-off branch runs again', async () => {
    const ws = workspace();
    const kept: WorkflowCheckpoint[] = [];
    // The slow branch thinks for a minute: it is surely still running when the share branch waits,
    // however loaded the machine (a race against a few seconds was not). The host "stops" there:
    // the run is aborted as soon as the wait is kept, and what is on disk is that first write.
    const stop = new AbortController();
    const graph = escalatingWithSlowBranch(ws.workspace, 60_000);
    const first = await run(graph, ws, { inputs: { name: 'shared.md' }, signal: stop.signal, persistWaiting: (c) => (kept.push(structuredClone(c)), stop.abort()) });
    expect(first.result.status).toBe('cancelled');
    const atStop = WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(kept[0])));
    expect(atStop.running.map((i) => i.id)).toEqual(['slow']);
    const journal = first.events.filter((e) => e.seq < atStop.next_seq);
    // The next host runs the cut-off branch again; this time its model answers at once.
    const slow = atStop.graph.nodes.find((n) => n.id === 'slow');
    if (slow?.kind === 'agent' && slow.script) slow.script = { ...slow.script, student: slow.script.student.map((e) => ({ ...e, delay_ms: 0 })) };
    const second = await run(graph, ws, { resume: { checkpoint: atStop, answer: { action: 'approve' } } });
    expect(second.result.message).toBeUndefined();
    expect(second.result.outputs).toEqual({ said: 'shared it', thought: 'thought' });
    expect(readFileSync(join(ws.workspace, 'shared.md'), 'utf8')).toBe('shared');
    oneJournal([...journal, ...second.events]);
  });

  it('a run cancelled after it was kept drops the kept checkpoint', async () => {
    const ws = workspace();
    const controller = new AbortController();
    let dropped = 0;
    const { result } = await run(escalatingWithSlowBranch(ws.workspace), ws, {
      inputs: { name: 'shared.md' },
      signal: controller.signal,
      persistWaiting: () => controller.abort(),
      dropWaiting: () => (dropped += 1),
    });
    expect(result.status).toBe('cancelled');
    expect(dropped).toBe(1);
  });
});
