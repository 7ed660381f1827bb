/**
 * The helpdesk workflow of the reroute-routes tests (issue 29): request → triage, an agent with the
 * routes billing and support whose replay student (the model boundary's double) reroutes to
 * support → one template per route → one output whose fields are optional. The e2e opens it in the
 * app; the CLI test runs it with `steward run`.
 */
export function helpdeskWorkflow() {
  return {
    format: 'steward/v1',
    kind: 'workflow',
    id: 'helpdesk',
    name: 'Helpdesk',
    description: 'Sends each request to billing or support.',
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'request', type: 'text' }], position: { x: 0, y: 80 } },
      {
        id: 'triage',
        kind: 'agent',
        instructions: 'Send each request to the team that handles it.',
        task: 'Route this request: {{request}}',
        inputs: [{ name: 'request', type: 'text' }],
        limits: { max_rounds: 2 },
        routes: [{ name: 'billing', description: 'invoices, refunds, payments' }, { name: 'support', description: 'log-in and product problems' }],
        script: { student: [{ json: { decision_type: 'reroute', target: 'support', reason: 'a log-in problem' } }] },
        position: { x: 260, y: 60 },
      },
      { id: 'bill_note', kind: 'template', inputs: [{ name: 'why', type: 'text' }], template: 'Billing: {{why}}', position: { x: 560, y: 0 } },
      { id: 'help_note', kind: 'template', inputs: [{ name: 'why', type: 'text' }], template: 'Support: {{why}}', position: { x: 560, y: 180 } },
      {
        id: 'out',
        kind: 'output',
        fields: [
          { name: 'billing', type: 'text', required: false },
          { name: 'support', type: 'text', required: false },
        ],
        position: { x: 840, y: 80 },
      },
    ],
    edges: [
      { from: { node: 'in', port: 'request' }, to: { node: 'triage', port: 'request' } },
      { from: { node: 'triage', port: 'billing' }, to: { node: 'bill_note', port: 'why' } },
      { from: { node: 'triage', port: 'support' }, to: { node: 'help_note', port: 'why' } },
      { from: { node: 'bill_note', port: 'output' }, to: { node: 'out', port: 'billing' } },
      { from: { node: 'help_note', port: 'output' }, to: { node: 'out', port: 'support' } },
    ],
  };
}
