import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
import { runWorkflow } from './run-workflow';
import { workflowLibrary } from './workflow-library';
import { WorkflowStore } from './workflow-store';
import { offerWorkflowTool } from './workflow-as-tool';

/**
 * A stored workflow offered to an agent as a tool (issue 29): its effect class is its most protected
 * node's, so the boundary reviews a call as any tool of that class; the call runs the workflow as a
 * child run and returns its outputs. Real store, registry, filesystem MCP server and run engine; the
 * models are the replay script (the scripted model double at the boundary).
 */
const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() as string, { recursive: true, force: true });
});

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-workflow-tool-'));
  dirs.push(dir);
  return dir;
}

const accept = (why: string) => ({ json: { verdict: 'accept', reason_codes: [], explanation: why } });

/** The child: writes its `text` to note.md in its workspace (a filesystem write, reviewed by its own teacher). */
const saveNote: HostedWorkflowGraphInput = {
  format: 'steward/v1',
  kind: 'workflow',
  id: 'save-note',
  name: 'Save a note',
  workspace: 'notes',
  servers: [{ id: 'fs', server: 'filesystem' }],
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text', description: 'What to write' }] },
    {
      id: 'save',
      kind: 'tool',
      server: 'fs',
      tool: 'write_file',
      inputs: [{ name: 'text', type: 'text' }],
      arguments: { path: 'note.md', content: '{{text}}' },
      review: { teacher: { provider: 'script' }, script: { teacher: [accept('A new note in the workspace.')] } },
    },
    { id: 'out', kind: 'output', fields: [{ name: 'saved', type: 'text' }] },
  ],
  edges: [
    { from: { node: 'in', port: 'text' }, to: { node: 'save', port: 'text' } },
    { from: { node: 'save', port: 'text' }, to: { node: 'out', port: 'saved' } },
  ],
};

/** The parent: one agent (phase 3, risk-gated) offered the stored workflow as a tool, and nothing else. */
function assistant(): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'assistant',
    name: 'Assistant',
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'ask', type: 'text' }] },
      {
        id: 'helper',
        kind: 'agent',
        instructions: 'Do what is asked with your tools, then complete.',
        task: '{{ask}}',
        inputs: [{ name: 'ask', type: 'text' }],
        workflow_tools: ['save-note'],
        supervision: { enabled: true, phase: 3 },
        script: {
          student: [
            { json: { decision_type: 'tool_call', tool_name: 'workflow_save-note', arguments: { text: 'Buy milk.' } } },
            { json: { decision_type: 'complete', output: 'Saved your note.' } },
          ],
          teacher: [accept('Writing the asked note is on task.'), accept('Done as asked.'), accept('Done as asked.')],
        },
      },
      { id: 'out', kind: 'output', fields: [{ name: 'answer', type: 'text' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'ask' }, to: { node: 'helper', port: 'ask' } },
      { from: { node: 'helper', port: 'output' }, to: { node: 'out', port: 'answer' } },
    ],
  });
}

function setUp(): { dir: string; notes: string } {
  const dir = temp();
  const notes = join(dir, 'notes');
  mkdirSync(notes);
  new HostRegistry(dir).putWorkspace({ id: 'notes', label: 'Notes', path: notes, in_data_folder: true });
  new WorkflowStore(dir).save(saveNote as Parameters<WorkflowStore['save']>[0]);
  return { dir, notes };
}

describe('a stored workflow as an agent’s tool', () => {
  it('is offered with the workflow’s inputs as its schema and its most protected node’s effect (a filesystem write)', () => {
    const { dir } = setUp();
    const tool = offerWorkflowTool('save-note', { library: workflowLibrary(dir) });
    expect(tool).toMatchObject({
      name: 'workflow_save-note',
      server: 'workflow',
      input_schema: { type: 'object', properties: { text: { type: 'string', description: 'What to write' } }, required: ['text'], additionalProperties: false },
      effect: { effect: 'irreversible_write', requires_user_confirmation: false },
    });
    expect(tool.description).toBe('Runs the stored workflow "Save a note" and returns its outputs (saved) as JSON. Irreversible write: node save (tool fs/write_file): Irreversible write.');
  });

  it('a call is reviewed like any protected tool, runs the workflow as a child run and returns its outputs', async () => {
    const { dir, notes } = setUp();
    const events: RunEvent[] = [];
    const result = await runWorkflow({ graph: assistant(), inputs: { ask: 'Note that I must buy milk.' }, specDir: dir, ledger: createMemoryLedger(), onEvent: (e) => events.push(RunEvent.parse(e)), runId: 'assistant-run-1', library: workflowLibrary(dir) });

    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ answer: 'Saved your note.' });
    expect(readFileSync(join(notes, 'note.md'), 'utf8')).toBe('Buy milk.');

    const own = events.filter((e) => e.run_id === 'assistant-run-1');
    const snapshot = own.find((e) => e.type === 'tools.snapshot');
    expect(snapshot?.type === 'tools.snapshot' && snapshot.tools).toContainEqual({ name: 'workflow_save-note', server: 'workflow', schema_hash: expect.any(String), effect: 'irreversible_write', effect_source: 'shipped' });
    // The boundary reviewed the call because its effect is protected, then authorized and executed it once.
    const review = own.find((e) => e.type === 'review.decided' && e.round === 0);
    expect(review?.type === 'review.decided' && review.review).toMatchObject({ required: true, rule: 'protected_effect' });
    const executed = own.filter((e) => e.type === 'tool.executed');
    expect(executed).toHaveLength(1);
    const execution = executed[0]?.type === 'tool.executed' ? executed[0].execution : undefined;
    expect(execution).toMatchObject({ server: 'workflow', tool: 'workflow_save-note', ok: true, is_error: false });
    // Its result is the child's outputs, as JSON.
    expect(Object.keys(JSON.parse(execution?.content ?? '{}') as object)).toEqual(['saved']);

    // The child is its own run, linked to the agent's invocation; the parent's report lists it under the node.
    const [child] = childRunsOf(own);
    expect(child).toMatchObject({ invocation_id: 'helper', workflow_id: 'save-note', status: 'completed', tool: expect.stringMatching(/^workflow_save-note@/) });
    const childEvents = events.filter((e) => e.run_id === child?.child_run_id);
    const started = childEvents.find((e) => e.type === 'workflow.started');
    expect(started?.type === 'workflow.started' && started.parent).toEqual({ run_id: 'assistant-run-1', invocation_id: 'helper', workflow_id: 'assistant' });
    expect(childEvents.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
  });

  it('an unknown workflow or one that offers itself is refused in words before any model is asked', async () => {
    const { dir } = setUp();
    const graph = assistant();
    const helper = graph.nodes[1];
    if (helper?.kind === 'agent') helper.workflow_tools = ['nowhere'];
    expect(validateGraph(graph, { workflows: workflowLibrary(dir).interfaces() })).toContainEqual({ node: 'helper', code: 'unknown_workflow', message: 'is offered the workflow "nowhere" as a tool, but no stored workflow has that id' });
    const result = await runWorkflow({ graph, inputs: { ask: 'x' }, specDir: dir, ledger: createMemoryLedger(), onEvent: () => undefined, library: workflowLibrary(dir) });
    expect(result.status).toBe('failed');
    expect(result.message).toBe('unknown_workflow: the workflow tool "workflow_nowhere" cannot be offered: no stored workflow "nowhere" on this host (steward workflows list shows them)');
    expect(existsSync(join(dir, 'notes', 'note.md'))).toBe(false);
  });

  it('a workflow called as a tool cannot wait for a person: its run is ended in words, and the agent is told so', async () => {
    const { dir, notes } = setUp();
    // The child as stored now: its write has no teacher, so only a person may allow it.
    const unreviewed = structuredClone(saveNote);
    const save = unreviewed.nodes[1] as { review?: unknown };
    delete save.review;
    new WorkflowStore(dir).save(unreviewed as Parameters<WorkflowStore['save']>[0]);
    const events: RunEvent[] = [];
    await runWorkflow({ graph: assistant(), inputs: { ask: 'Note it.' }, specDir: dir, ledger: createMemoryLedger(), onEvent: (e) => events.push(RunEvent.parse(e)), runId: 'assistant-run-2', library: workflowLibrary(dir), parkEscalations: true, confirm: async () => 'pending' as const });

    const own = events.filter((e) => e.run_id === 'assistant-run-2');
    const executed = own.find((e) => e.type === 'tool.executed');
    const words = '"Save a note" waits for a person (fs/write_file has a protected effect (irreversible write) and no teacher reviews it: it runs only if you confirm it.), and a workflow called as a tool cannot wait: its run was ended; run it as a workflow node to answer it';
    expect(executed?.type === 'tool.executed' && executed.execution).toMatchObject({ tool: 'workflow_save-note', is_error: true, content: words });
    const [child] = childRunsOf(own);
    expect(child).toMatchObject({ status: 'failed', message: words });
    expect(events.filter((e) => e.run_id === child?.child_run_id).at(-1)).toMatchObject({ type: 'run.finished', status: 'failed', message: words });
    expect(existsSync(join(notes, 'note.md'))).toBe(false);
  });
});
