import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';

/**
 * A workflow whose scripted agent (the model boundary's test double) calls the shipped
 * server-everything's `trigger-elicitation-request` once, then completes: the real server asks the
 * person for a form (name, email, a number, choices…) while the call is in flight.
 */
export function elicitingWorkflow(id = 'asks-person'): HostedWorkflowGraph {
  return askingServerWorkflow(id, { tool: 'trigger-elicitation-request', arguments: {}, replies: [] });
}

/** The same with another of server-everything's tools that asks the client; `replies`: the student's answers in between (a sampled reply). */
export function askingServerWorkflow(id: string, call: { tool: string; arguments: Record<string, unknown>; replies: Array<{ text: string }>; sampling?: 'ask' }): HostedWorkflowGraph {
  return HostedWorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id,
    name: 'Server asks the person',
    servers: [{ id: 'ev', server: 'everything', tools: [call.tool], ...(call.sampling ? { sampling: call.sampling } : {}) }],
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'name', type: 'text', required: false, default: 'x' }] },
      {
        id: 'asker',
        kind: 'agent',
        instructions: 'Ask the person.',
        task: 'Ask the person for {{name}}, then say done.',
        inputs: [{ name: 'name', type: 'text' }],
        servers: ['ev'],
        script: {
          latency_ms: 0,
          student: [{ json: { decision_type: 'tool_call', tool_name: call.tool, arguments: call.arguments } }, ...call.replies, { json: { decision_type: 'complete', output: 'done' } }],
          // The tool's effect is unknown: the teacher reviews the call and approves it.
          teacher: [{ json: { verdict: 'accept', reason_codes: [], explanation: 'Asking the person is fine.' } }],
        },
      },
      { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'name' }, to: { node: 'asker', port: 'name' } },
      { from: { node: 'asker', port: 'output' }, to: { node: 'out', port: 'said' } },
    ],
  });
}
