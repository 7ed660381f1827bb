import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import { WorkflowGraph } from '@shared/workflow/document';
import type { HostedWorkflowGraphInput } from '@shared/workflow/hosted-graph';
import { childRunsOf } from '@shared/workflow/child-runs';
import { validateGraph } from '@shared/workflow/validate-graph';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { HostRegistry } from '../registry/host-registry';
import { WorkflowCheckpoint } from './workflow-checkpoint';
import { runWorkflow } from './run-workflow';
import { workflowLibrary } from './workflow-library';
import { WorkflowStore } from './workflow-store';

/**
 * Workflows as agents (issue 29): a workflow node runs a stored workflow as its own linked run, with
 * its own supervision inside. Real store, registry and run engine; the models are the replay script
 * (the scripted model double at the boundary).
 */
const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() as string, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-subworkflow-'));
  dirs.push(dir);
  return dir;
}

/** The child: an agent fully gated (phase 2) whose teacher replaces the student's draft. */
const summarize: HostedWorkflowGraphInput = {
  format: 'steward/v1',
  kind: 'workflow',
  id: 'summarize',
  name: 'Summarize',
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }, { name: 'style', type: 'text', required: false, default: 'plain' }] },
    {
      id: 'writer',
      kind: 'agent',
      instructions: 'Summarize in one line.',
      task: 'Summarize ({{style}}): {{text}}',
      inputs: [{ name: 'text', type: 'text' }, { name: 'style', type: 'text' }],
      supervision: { enabled: true, phase: 2 },
      script: {
        student: [{ json: { decision_type: 'complete', output: 'notes are notes' } }],
        teacher: [{ json: { verdict: 'replace', reason_codes: ['hallucination'], explanation: 'The draft says nothing; name the release slip.', replacement: { decision_type: 'complete', output: 'The release slips a week.' } } }],
      },
    },
    { id: 'out', kind: 'output', fields: [{ name: 'summary', type: 'text' }] },
  ],
  edges: [
    { from: { node: 'in', port: 'text' }, to: { node: 'writer', port: 'text' } },
    { from: { node: 'in', port: 'style' }, to: { node: 'writer', port: 'style' } },
    { from: { node: 'writer', port: 'output' }, to: { node: 'out', port: 'summary' } },
  ],
};

function parent(id = 'digest', child = 'summarize'): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id,
    name: 'Digest',
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'notes', type: 'text' }] },
      { id: 'sum', kind: 'workflow', workflow: child, inputs: [{ name: 'text', type: 'text' }], outputs: [{ name: 'summary', type: 'text' }] },
      { id: 'report', kind: 'template', inputs: [{ name: 'summary', type: 'text' }], template: 'Digest: {{summary}}' },
      { id: 'out', kind: 'output', fields: [{ name: 'digest', type: 'text' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'notes' }, to: { node: 'sum', port: 'text' } },
      { from: { node: 'sum', port: 'summary' }, to: { node: 'report', port: 'summary' } },
      { from: { node: 'report', port: 'output' }, to: { node: 'out', port: 'digest' } },
    ],
  });
}

async function run(dir: string, graph: WorkflowGraph, inputs: Record<string, unknown>) {
  const events: RunEvent[] = [];
  const result = await runWorkflow({ graph, inputs, specDir: dir, ledger: createMemoryLedger(), onEvent: (e) => events.push(RunEvent.parse(e)), runId: 'parent-run-0001', library: workflowLibrary(dir) });
  return { result, events };
}

describe('a workflow node', () => {
  it('runs the stored workflow as its own linked run: outputs flow on, and the child teacher’s intervention is in the parent’s report under the node', async () => {
    const dir = dataDir();
    new WorkflowStore(dir).save(summarize as Parameters<WorkflowStore['save']>[0]);
    const { result, events } = await run(dir, parent(), { notes: 'Release moved from Monday to next Monday.' });

    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ digest: 'Digest: The release slips a week.' });

    const childRun = 'parent-run-0001:sum';
    const own = events.filter((e) => e.run_id === 'parent-run-0001');
    const child = events.filter((e) => e.run_id === childRun);
    // The child is its own run, naming its parent; its agent was supervised per its own settings (phase 2).
    const started = child.find((e) => e.type === 'workflow.started');
    expect(started?.type === 'workflow.started' && started.parent).toEqual({ run_id: 'parent-run-0001', invocation_id: 'sum', workflow_id: 'digest' });
    expect(child.some((e) => e.type === 'verdict.received' && e.attempt.verdict?.verdict === 'replace')).toBe(true);
    expect(child.at(-1)?.type).toBe('run.finished');
    // The parent's own journal names the child run on the node's events, never the child's node events.
    expect(own.some((e) => e.type === 'node.invocation' && e.node === 'writer')).toBe(false);
    const [listed] = childRunsOf(own);
    expect(listed).toMatchObject({ invocation_id: 'sum', workflow_id: 'summarize', workflow_name: 'Summarize', child_run_id: childRun, status: 'completed' });
    expect(listed?.interventions).toEqual([{ by: 'teacher', node: 'writer', action: 'replace', text: 'the teacher replaced round 1: The draft says nothing; name the release slip.' }]);
    // The child got the node's input and its own default for what the node does not pass.
    const agentStarted = child.find((e) => e.type === 'agent.started');
    expect(agentStarted?.type === 'agent.started' && agentStarted.task).toBe('Summarize (plain): Release moved from Monday to next Monday.');
  });

  it('a replay of the parent never runs the child workflow again (its agents would call live models): the node fails closed, naming the child run to replay', async () => {
    const dir = dataDir();
    new WorkflowStore(dir).save(summarize as Parameters<WorkflowStore['save']>[0]);
    const first = await run(dir, parent(), { notes: 'n' });
    expect(first.result.status).toBe('completed');
    const events: RunEvent[] = [];
    const replayed = await runWorkflow({
      graph: parent(),
      inputs: { notes: 'n' },
      specDir: dir,
      ledger: createMemoryLedger(),
      onEvent: (e) => events.push(RunEvent.parse(e)),
      runId: 'replay-run-0001',
      library: workflowLibrary(dir),
      replay: { replay_of: 'parent-run-0001', live: false, invocations: {} },
    });
    expect(replayed.status).toBe('failed');
    expect(replayed.message).toContain('a replay does not run it again: replay that run on its own (steward replay parent-run-0001:sum)');
    // No child run was started: nothing ran under a child id, no model was asked.
    expect(events.some((e) => e.run_id.startsWith('replay-run-0001:'))).toBe(false);
    expect(events.some((e) => e.type === 'subworkflow.started')).toBe(false);
  });

  it('a child that fails shows in the parent in words, and the node fails with it', async () => {
    const dir = dataDir();
    const failing = structuredClone(summarize);
    const writer = failing.nodes[1] as { script: unknown; limits?: unknown };
    writer.script = { student: [{ json: { decision_type: 'complete', output: 'x' } }], teacher: [{ json: { verdict: 'block', reason_codes: ['off_task'], explanation: 'Not a summary.' } }] };
    new WorkflowStore(dir).save(failing as Parameters<WorkflowStore['save']>[0]);
    const { result, events } = await run(dir, parent(), { notes: 'n' });
    expect(result.status).toBe('failed');
    expect(result.message).toMatch(/^workflow_failed: the workflow "Summarize" \(run parent-run-0001:sum\) failed: /);
    const [listed] = childRunsOf(events.filter((e) => e.run_id === 'parent-run-0001'));
    expect(listed?.status).toBe('failed');
    expect(listed?.interventions[0]).toMatchObject({ by: 'teacher', action: 'block', node: 'writer' });
  });

  it('a workflow that contains itself, directly or through another, is refused in words: by validation and at run time', async () => {
    const dir = dataDir();
    const store = new WorkflowStore(dir);
    const node = (child: string) => ({ id: 'again', kind: 'workflow' as const, workflow: child, inputs: [{ name: 'text', type: 'text' as const }], outputs: [{ name: 'summary', type: 'text' as const }] });
    const shape = (id: string, child: string): HostedWorkflowGraphInput => ({
      format: 'steward/v1',
      kind: 'workflow',
      id,
      name: id.toUpperCase(),
      nodes: [{ id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }] }, node(child), { id: 'out', kind: 'output', fields: [{ name: 'summary', type: 'text' }] }],
      edges: [
        { from: { node: 'in', port: 'text' }, to: { node: 'again', port: 'text' } },
        { from: { node: 'again', port: 'summary' }, to: { node: 'out', port: 'summary' } },
      ],
    });
    store.save(shape('selfish', 'selfish') as Parameters<WorkflowStore['save']>[0]);
    store.save(shape('ping', 'pong') as Parameters<WorkflowStore['save']>[0]);
    store.save(shape('pong', 'ping') as Parameters<WorkflowStore['save']>[0]);
    const known = workflowLibrary(dir).interfaces();

    const self = validateGraph(WorkflowGraph.parse({ ...shape('selfish', 'selfish'), servers: [] }), { workflows: known });
    expect(self).toContainEqual({ node: 'again', code: 'workflow_cycle', message: 'runs this workflow itself: a workflow cannot contain itself' });
    const indirect = validateGraph(WorkflowGraph.parse(shape('ping', 'pong')), { workflows: known });
    expect(indirect).toContainEqual({ node: 'again', code: 'workflow_cycle', message: 'runs "pong", which runs this workflow again: a workflow cannot contain itself, directly or through others' });
    // Unknown workflow and a missing required input, too.
    const missing = validateGraph(WorkflowGraph.parse({ ...shape('x', 'nowhere') }), { workflows: known });
    expect(missing).toContainEqual({ node: 'again', code: 'unknown_workflow', message: 'runs the workflow "nowhere", but no stored workflow has that id: pick one of the stored workflows' });
    new WorkflowStore(dir).save(summarize as Parameters<WorkflowStore['save']>[0]);
    const noInput = parent();
    const sum = noInput.nodes[1];
    if (sum?.kind === 'workflow') sum.inputs = [];
    const problems = validateGraph({ ...noInput, edges: noInput.edges.filter((e) => e.to.node !== 'sum') }, { workflows: workflowLibrary(dir).interfaces() });
    expect(problems).toContainEqual({ node: 'sum', port: 'text', code: 'missing_input', message: '"Summarize" needs the input "text", which this node does not have: pick the workflow again to copy its inputs, then connect it' });

    // Run anyway (a file no one validated): the run refuses the loop at the node, in words, and nothing loops.
    const { result } = await run(dir, WorkflowGraph.parse(shape('ping', 'pong')), { text: 't' });
    expect(result.status).toBe('failed');
    expect(result.message).toBe('workflow_failed: the workflow "PONG" (run parent-run-0001:again) failed: workflow_cycle: the workflow "ping" is already running above this one (ping → pong → ping): a workflow cannot contain itself');
  });

  it('a child that waits for a person makes the parent wait with its question; the answer resumes the child from the parent’s checkpoint', async () => {
    const dir = dataDir();
    const notes = join(dir, 'notes');
    mkdirSync(notes);
    new HostRegistry(dir).putWorkspace({ id: 'notes', label: 'Notes', path: notes, in_data_folder: true });
    // The child writes a file with no teacher to review it: only a person may allow it.
    const save: HostedWorkflowGraphInput = {
      format: 'steward/v1',
      kind: 'workflow',
      id: 'save-note',
      name: 'Save a note',
      workspace: 'notes',
      servers: [{ id: 'fs', server: 'filesystem' }],
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }] },
        { id: 'save', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [{ name: 'text', type: 'text' }], arguments: { path: 'note.md', content: '{{text}}' } },
        { id: 'out', kind: 'output', fields: [{ name: 'summary', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'text' }, to: { node: 'save', port: 'text' } },
        { from: { node: 'save', port: 'text' }, to: { node: 'out', port: 'summary' } },
      ],
    };
    new WorkflowStore(dir).save(save as Parameters<WorkflowStore['save']>[0]);
    const events: RunEvent[] = [];
    const kept: WorkflowCheckpoint[] = [];
    const options = { graph: parent('digest', 'save-note'), inputs: { notes: 'Buy milk.' }, specDir: dir, ledger: createMemoryLedger(), onEvent: (e: RunEvent) => events.push(RunEvent.parse(e)), runId: 'parent-run-0001', library: workflowLibrary(dir), parkEscalations: true, confirm: async () => 'pending' as const, persistWaiting: (c: WorkflowCheckpoint) => kept.push(c) };
    const first = await runWorkflow(options);

    expect(first.status).toBe('waiting');
    const [asked] = first.interventions ?? [];
    expect(asked?.invocation_id).toBe('sum');
    expect(asked?.intervention).toMatchObject({ run_id: 'parent-run-0001', kind: 'confirmation' });
    // What is kept on disk holds the child's own checkpoint, and reads back.
    const checkpoint = WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(kept.at(-1))));
    expect(checkpoint.waiting.sum?.child?.run_id).toBe('parent-run-0001:sum');
    expect(childRunsOf(events.filter((e) => e.run_id === 'parent-run-0001'))[0]?.status).toBe('waiting');

    const resumed = await runWorkflow({ ...options, resume: { checkpoint, answer: { action: 'approve' }, invocation: 'sum' } });
    expect(resumed.status).toBe('completed');
    expect(resumed.outputs.digest).toMatch(/^Digest: /);
    expect(readFileSync(join(notes, 'note.md'), 'utf8')).toBe('Buy milk.');
    const child = events.filter((e) => e.run_id === 'parent-run-0001:sum');
    expect(child.filter((e) => e.type === 'workflow.started')).toHaveLength(1);
    expect(child.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    const listed = childRunsOf(events.filter((e) => e.run_id === 'parent-run-0001'));
    expect(listed).toHaveLength(1);
    expect(listed[0]?.status).toBe('completed');
    expect(listed[0]?.interventions.map((i) => [i.by, i.action])).toEqual([['person', 'asked'], ['person', 'approve']]);
  });
});
