import { join } from 'node:path';
import { WorkflowGraph } from '../src-shared/workflow/document';

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
