import { join } from 'node:path';
import { WorkflowGraph } from '../src-shared/workflow/document';
import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';

/**
 * A one-agent workflow whose agent proposes writing `shared.md` in `workspace` and whose teacher
 * escalates that to a person (on_escalate: human): the run waits until someone answers.
 */
export function escalatingWorkflow(workspace: string): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'share',
    name: 'Share',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'] }],
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'name', type: 'text' }] },
      {
        id: 'sharer',
        kind: 'agent',
        instructions: 'Share notes.',
        task: 'Share the notes as {{name}}.',
        inputs: [{ name: 'name', type: 'text' }],
        supervision: { phase: 3, on_escalate: 'human' },
        script: {
          student: [
            { json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(workspace, 'shared.md'), content: 'shared' } } },
            { json: { decision_type: 'complete', output: 'shared it' } },
          ],
          teacher: [{ json: { verdict: 'escalate', reason_codes: ['policy_violation'], explanation: 'A person should approve what gets shared.' } }],
        },
      },
      { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'name' }, to: { node: 'sharer', port: 'name' } },
      { from: { node: 'sharer', port: 'output' }, to: { node: 'out', port: 'said' } },
    ],
  });
}

/** The same, with a second branch (`slow`, an agent that answers after `delayMs`) running beside the wait. */
export function escalatingWithSlowBranch(workspace: string, delayMs = 400): WorkflowGraph {
  const share = escalatingWorkflow(workspace);
  return WorkflowGraph.parse({
    ...share,
    nodes: [
      ...share.nodes.filter((n) => n.kind !== 'output'),
      { id: 'slow', kind: 'agent', instructions: 'Think.', task: 'Think about {{name}}.', inputs: [{ name: 'name', type: 'text' }], servers: [], script: { student: [{ json: { decision_type: 'complete', output: 'thought' }, delay_ms: delayMs }] } },
      { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }, { name: 'thought', type: 'text' }] },
    ],
    edges: [...share.edges, { from: { node: 'in', port: 'name' }, to: { node: 'slow', port: 'name' } }, { from: { node: 'slow', port: 'output' }, to: { node: 'out', port: 'thought' } }],
  });
}

const ACCEPT = { json: { verdict: 'accept', reason_codes: [], explanation: 'Makes a folder in the workspace.' } };

/**
 * A stored workflow whose one agent answers after `delayMs` (the slow branch as a child run of its own,
 * by a workflow node). With `folder`, it then makes that folder in the `share` workspace (its teacher,
 * a script, accepts the call): a tool call its run makes after the slow part, or before it (`folderFirst`).
 */
export function slowThought(delayMs: number, folder?: string, folderFirst = false): HostedWorkflowGraph {
  const slow = { id: 'slow', kind: 'agent', instructions: 'Think.', task: 'Think about {{name}}.', inputs: [{ name: 'name', type: 'text' }], servers: [], script: { student: [{ json: { decision_type: 'complete', output: 'thought' }, delay_ms: delayMs }] } };
  const base = { format: 'steward/v1', kind: 'workflow', id: 'slow-thought', name: 'Slow thought' };
  if (folder === undefined) {
    return HostedWorkflowGraph.parse({
      ...base,
      nodes: [{ id: 'in', kind: 'input', fields: [{ name: 'name', type: 'text' }] }, slow, { id: 'out', kind: 'output', fields: [{ name: 'thought', type: 'text' }] }],
      edges: [
        { from: { node: 'in', port: 'name' }, to: { node: 'slow', port: 'name' } },
        { from: { node: 'slow', port: 'output' }, to: { node: 'out', port: 'thought' } },
      ],
    });
  }
  const mk = { id: 'mk', kind: 'tool', server: 'fs', tool: 'create_directory', inputs: [{ name: 'thought', type: 'text' }], arguments: { path: folder }, review: { teacher: { provider: 'script' }, script: { teacher: [ACCEPT] } } };
  return HostedWorkflowGraph.parse({
    ...base,
    workspace: 'share',
    servers: [{ id: 'fs', server: 'filesystem', tools: ['create_directory'] }],
    nodes: [{ id: 'in', kind: 'input', fields: [{ name: 'name', type: 'text' }] }, slow, folderFirst ? { ...mk, inputs: [{ name: 'name', type: 'text' }] } : mk, { id: 'out', kind: 'output', fields: [{ name: 'thought', type: 'text' }] }],
    edges: folderFirst
      ? [
          // The folder first; the slow part after it.
          { from: { node: 'in', port: 'name' }, to: { node: 'mk', port: 'name' } },
          { from: { node: 'mk', port: 'text' }, to: { node: 'slow', port: 'name' } },
          { from: { node: 'slow', port: 'output' }, to: { node: 'out', port: 'thought' } },
        ]
      : [
          { from: { node: 'in', port: 'name' }, to: { node: 'slow', port: 'name' } },
          { from: { node: 'slow', port: 'output' }, to: { node: 'mk', port: 'thought' } },
          { from: { node: 'slow', port: 'output' }, to: { node: 'out', port: 'thought' } },
        ],
  });
}

/** `escalatingWithSlowBranch` with its slow branch run as that stored workflow, by a workflow node. */
export function escalatingWithSlowChild(workspace: string, delayMs: number): WorkflowGraph {
  const graph = escalatingWithSlowBranch(workspace, delayMs);
  return WorkflowGraph.parse({
    ...graph,
    nodes: graph.nodes.map((n) => (n.id === 'slow' ? { id: 'slow', kind: 'workflow', workflow: 'slow-thought', inputs: [{ name: 'name', type: 'text' }], outputs: [{ name: 'thought', type: 'text' }] } : n)),
    edges: graph.edges.map((e) => (e.from.node === 'slow' ? { ...e, from: { node: 'slow', port: 'thought' } } : e)),
  });
}

/** A workflow as the app stores it: its servers the shipped filesystem entry, its workspace the registered `workspaceId`. */
export function storedIn(graph: WorkflowGraph, workspaceId: string): HostedWorkflowGraph {
  const { tool_effects: _effects, ...document } = graph;
  return HostedWorkflowGraph.parse({ ...document, workspace: workspaceId, servers: document.servers.map((s) => ({ id: s.id, server: 'filesystem' })) });
}
