import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';

/** A registered server the workflow uses, by its id in the workflow and its registry entry. */
export interface CalledServer {
  id: string;
  server: string;
  sampling?: 'ask';
}

/**
 * input → a scripted agent (the model boundary's test double) that calls one tool of one
 * registered server once, then completes → output. `replies`: the student's answers in between (a
 * sampled reply). The teacher accepts the call, should the tool's effect need a review.
 */
export function oneCallWorkflow(id: string, name: string, call: { server: CalledServer; tool: string; arguments: Record<string, unknown>; replies?: Array<{ text: string }> }): HostedWorkflowGraph {
  const { server } = call;
  return HostedWorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id,
    name,
    servers: [{ id: server.id, server: server.server, tools: [call.tool], ...(server.sampling ? { sampling: server.sampling } : {}) }],
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'name', type: 'text', required: false, default: 'x' }] },
      {
        id: 'caller',
        kind: 'agent',
        instructions: `Call ${call.tool}.`,
        task: `Call ${call.tool} for {{name}}, then say done.`,
        inputs: [{ name: 'name', type: 'text' }],
        servers: [server.id],
        script: {
          latency_ms: 0,
          student: [{ json: { decision_type: 'tool_call', tool_name: call.tool, arguments: call.arguments } }, ...(call.replies ?? []), { json: { decision_type: 'complete', output: 'done' } }],
          teacher: [{ json: { verdict: 'accept', reason_codes: [], explanation: 'This call is fine.' } }],
        },
      },
      { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'name' }, to: { node: 'caller', port: 'name' } },
      { from: { node: 'caller', port: 'output' }, to: { node: 'out', port: 'said' } },
    ],
  });
}

/**
 * A workflow whose agent calls the shipped server-everything's `trigger-elicitation-request` once:
 * the real server asks the person for a form (name, email, a number, choices…) while the call is in flight.
 */
export function elicitingWorkflow(id = 'asks-person'): HostedWorkflowGraph {
  return askingServerWorkflow(id, { tool: 'trigger-elicitation-request', arguments: {}, replies: [] });
}

/** The same with another of server-everything's tools that asks the client. */
export function askingServerWorkflow(id: string, call: { tool: string; arguments: Record<string, unknown>; replies: Array<{ text: string }>; sampling?: 'ask' }): HostedWorkflowGraph {
  return oneCallWorkflow(id, 'Server asks the person', { server: { id: 'ev', server: 'everything', ...(call.sampling ? { sampling: call.sampling } : {}) }, tool: call.tool, arguments: call.arguments, replies: call.replies });
}
