import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import { childRunsOf } from '@shared/workflow/child-runs';
import { WorkflowGraph } from '@shared/workflow/document';
import type { HostedWorkflowGraphInput } from '@shared/workflow/hosted-graph';
import { validateGraph } from '@shared/workflow/validate-graph';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { HostRegistry } from '../registry/host-registry';
import { runWorkflow } from './run-workflow';
import { offerWorkflowTool } from './workflow-as-tool';
import { workflowLibrary } from './workflow-library';
import { WorkflowStore } from './workflow-store';

/**
 * Workflows as agents (issue 29) for a pattern's members: a member (an agent) offered a stored
 * workflow as a tool calls it as an agent node does — its effect class the workflow's most protected
 * node's, reviewed by the member's boundary, the call a child run linked to the pattern's invocation.
 * Real store, registry, filesystem MCP server and run engine; the members, teachers and judge are
 * replay scripts (the scripted model double at the boundary).
 */
const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() as string, { recursive: true, force: true });
});

const accept = (why: string) => ({ json: { verdict: 'accept', reason_codes: [], explanation: why } });

/** The child: writes its `text` to note.md (a filesystem write); `reviewed`: its own teacher accepts it, else only a person may. */
function saveNote(reviewed: boolean): HostedWorkflowGraphInput {
  return {
    format: 'steward/v1',
    kind: 'workflow',
    id: 'save-note',
    name: 'Save a note',
    workspace: 'notes',
    servers: [{ id: 'fs', server: 'filesystem' }],
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }] },
      {
        id: 'save',
        kind: 'tool',
        server: 'fs',
        tool: 'write_file',
        inputs: [{ name: 'text', type: 'text' }],
        arguments: { path: 'note.md', content: '{{text}}' },
        ...(reviewed ? { review: { teacher: { provider: 'script' }, script: { teacher: [accept('A new note in the workspace.')] } } } : {}),
      },
      { id: 'out', kind: 'output', fields: [{ name: 'saved', type: 'text' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'text' }, to: { node: 'save', port: 'text' } },
      { from: { node: 'save', port: 'text' }, to: { node: 'out', port: 'saved' } },
    ],
  };
}

/** A SUPERVISOR pattern whose one member (risk-gated) is offered the stored workflow; a judge approves. */
function teamDoc(tools: string[] = ['save-note']): HostedWorkflowGraphInput {
  return {
    format: 'steward/v1',
    kind: 'workflow',
    id: 'team',
    name: 'Team',
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'ask', type: 'text' }] },
      {
        id: 'p',
        kind: 'pattern',
        type: 'SUPERVISOR',
        task: '{{ask}}',
        inputs: [{ name: 'ask', type: 'text' }],
        members: [
          {
            id: 'clerk',
            role: 'clerk',
            instructions: 'Do what is asked with your tools, then complete.',
            workflow_tools: tools,
            supervision: { enabled: true, phase: 3 },
            script: {
              student: [
                { json: { decision_type: 'tool_call', tool_name: 'workflow_save-note', arguments: { text: 'Buy milk.' } } },
                { json: { decision_type: 'complete', output: 'Saved the note.' } },
              ],
              teacher: [accept('Writing the asked note is on task.'), accept('Done as asked.'), accept('Done as asked.')],
            },
          },
        ],
        max_iterations: 1,
        judgment: { mode: 'post_step', callers: [{ kind: 'llm', profile: 'judge' }], verifier: { must_cite: ['clerk'] } },
        judge_models: { judge: { provider: 'script' } },
        judge_script: { teacher: [{ json: { verdict: 'approved', evidence: ['clerk#1'] } }] },
      },
      { id: 'out', kind: 'output', fields: [{ name: 'answer', type: 'text' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'ask' }, to: { node: 'p', port: 'ask' } },
      { from: { node: 'p', port: 'output' }, to: { node: 'out', port: 'answer' } },
    ],
  };
}

const team = (tools?: string[]): WorkflowGraph => WorkflowGraph.parse(teamDoc(tools));

function setUp(reviewed = true): { dir: string; notes: string } {
  const dir = mkdtempSync(join(tmpdir(), 'steward-member-tool-'));
  dirs.push(dir);
  const notes = join(dir, 'notes');
  mkdirSync(notes);
  new HostRegistry(dir).putWorkspace({ id: 'notes', label: 'Notes', path: notes, in_data_folder: true });
  new WorkflowStore(dir).save(saveNote(reviewed) as Parameters<WorkflowStore['save']>[0]);
  return { dir, notes };
}

describe('a stored workflow as a pattern member’s tool', () => {
  it('the member calls it, reviewed as a protected tool; it runs as a child run linked to the pattern’s invocation', async () => {
    const { dir, notes } = setUp();
    const events: RunEvent[] = [];
    const result = await runWorkflow({ graph: team(), inputs: { ask: 'Note that I must buy milk.' }, specDir: dir, ledger: createMemoryLedger(), onEvent: (e) => events.push(RunEvent.parse(e)), runId: 'team-run-0001', library: workflowLibrary(dir) });

    expect(result.status, result.message).toBe('completed');
    expect(result.outputs).toEqual({ answer: 'Saved the note.' });
    expect(readFileSync(join(notes, 'note.md'), 'utf8')).toBe('Buy milk.');

    const own = events.filter((e) => e.run_id === 'team-run-0001');
    // The member's round offered the workflow with the class of its most protected node, so its teacher reviewed the call.
    const snapshot = own.find((e) => e.type === 'tools.snapshot' && e.pattern_member === 'clerk#1');
    expect(snapshot?.type === 'tools.snapshot' && snapshot.tools).toContainEqual(expect.objectContaining({ name: 'workflow_save-note', server: 'workflow', effect: 'irreversible_write' }));
    const review = own.find((e) => e.type === 'review.decided' && e.pattern_member === 'clerk#1' && e.round === 0);
    expect(review?.type === 'review.decided' && review.review).toMatchObject({ required: true, rule: 'protected_effect' });
    const executed = own.filter((e) => e.type === 'tool.executed');
    expect(executed).toHaveLength(1);
    expect(executed[0]?.type === 'tool.executed' && executed[0].execution).toMatchObject({ server: 'workflow', tool: 'workflow_save-note', ok: true, is_error: false });

    // The child is a run of its own, naming the parent run and the pattern's invocation; the parent lists it under the node.
    const [child] = childRunsOf(own);
    expect(child).toMatchObject({ invocation_id: 'p', workflow_id: 'save-note', status: 'completed', tool: expect.stringMatching(/^workflow_save-note@/) });
    const childEvents = events.filter((e) => e.run_id === child?.child_run_id);
    const started = childEvents.find((e) => e.type === 'workflow.started');
    expect(started?.type === 'workflow.started' && started.parent).toEqual({ run_id: 'team-run-0001', invocation_id: 'p', workflow_id: 'team' });
    expect(childEvents.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });

    // Offered as a tool itself, the team is as protected as what its member may run.
    new WorkflowStore(dir).save(teamDoc() as Parameters<WorkflowStore['save']>[0]);
    const offered = offerWorkflowTool('team', { library: workflowLibrary(dir) });
    expect(offered.effect.effect).toBe('irreversible_write');
    expect(offered.description).toContain('may run the workflow');
  });

  it('a child that would wait for a person inside the call fails closed in words; nothing is written', async () => {
    const { dir, notes } = setUp(false);
    const events: RunEvent[] = [];
    await runWorkflow({ graph: team(), inputs: { ask: 'Note it.' }, specDir: dir, ledger: createMemoryLedger(), onEvent: (e) => events.push(RunEvent.parse(e)), runId: 'team-run-0002', library: workflowLibrary(dir), parkEscalations: true, confirm: async () => 'pending' as const });

    const own = events.filter((e) => e.run_id === 'team-run-0002');
    const executed = own.find((e) => e.type === 'tool.executed');
    expect(executed?.type === 'tool.executed' && executed.execution).toMatchObject({ tool: 'workflow_save-note', is_error: true, content: expect.stringContaining('a workflow called as a tool cannot wait: its run was ended') });
    const [child] = childRunsOf(own);
    expect(child?.status).toBe('failed');
    expect(events.filter((e) => e.run_id === child?.child_run_id).at(-1)).toMatchObject({ type: 'run.finished', status: 'failed' });
    expect(existsSync(join(notes, 'note.md'))).toBe(false);
  });

  it('an unknown workflow, or one that would run the pattern’s own workflow, is refused by validation and at run time', async () => {
    const { dir } = setUp();
    new WorkflowStore(dir).save(teamDoc(['team']) as Parameters<WorkflowStore['save']>[0]);
    const known = workflowLibrary(dir).interfaces();
    expect(validateGraph(team(['nowhere']), { workflows: known })).toContainEqual({ node: 'p', code: 'unknown_workflow', message: 'its member "clerk" is offered the workflow "nowhere" as a tool, but no stored workflow has that id' });
    expect(validateGraph(team(['team']), { workflows: known })).toContainEqual({ node: 'p', code: 'workflow_cycle', message: 'its member "clerk" is offered as a tool this workflow itself: a workflow cannot contain itself' });
    const result = await runWorkflow({ graph: team(['nowhere']), inputs: { ask: 'x' }, specDir: dir, ledger: createMemoryLedger(), onEvent: () => undefined, library: workflowLibrary(dir) });
    expect(result.status).toBe('failed');
    expect(result.message).toContain('the workflow tool "workflow_nowhere" cannot be offered: no stored workflow "nowhere" on this host');
  });
});
