import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HostedWorkflowGraphInput } from '../src-shared/workflow/hosted-graph';

/**
 * A workflow another one runs as a node (issue 29), on the replay script (the scripted model double):
 * `summarize`, whose phase 2 teacher replaces the student's draft, and `digest`, whose node `sum`
 * runs it, so each digest run has the child run `RUN_ID:sum`.
 */
export const summarize: HostedWorkflowGraphInput = {
  format: 'steward/v1',
  kind: 'workflow',
  id: 'summarize',
  name: 'Summarize',
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }] },
    {
      id: 'writer',
      kind: 'agent',
      label: 'Writer',
      instructions: 'Summarize in one line.',
      task: 'Summarize: {{text}}',
      inputs: [{ name: 'text', type: 'text' }],
      supervision: { enabled: true, phase: 2 },
      script: {
        student: [{ json: { decision_type: 'complete', output: 'notes' } }],
        teacher: [{ json: { verdict: 'replace', reason_codes: ['hallucination'], explanation: 'Name the slip.', replacement: { decision_type: 'complete', output: 'The release slips a week.' } } }],
      },
    },
    { id: 'out', kind: 'output', fields: [{ name: 'summary', type: 'text' }] },
  ],
  edges: [
    { from: { node: 'in', port: 'text' }, to: { node: 'writer', port: 'text' } },
    { from: { node: 'writer', port: 'output' }, to: { node: 'out', port: 'summary' } },
  ],
};

/** The parent workflow as a file in `dir`: its node `sum` runs the stored workflow `child`. */
export function parentFile(dir: string, child = 'summarize'): string {
  const file = join(dir, 'parent.workflow.json');
  writeFileSync(
    file,
    JSON.stringify({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'digest',
      name: 'Digest',
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'notes', type: 'text' }] },
        { id: 'sum', kind: 'workflow', label: 'Summary', workflow: child, inputs: [{ name: 'text', type: 'text' }], outputs: [{ name: 'summary', type: 'text' }] },
        { id: 'out', kind: 'output', fields: [{ name: 'digest', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'notes' }, to: { node: 'sum', port: 'text' } },
        { from: { node: 'sum', port: 'summary' }, to: { node: 'out', port: 'digest' } },
      ],
    }),
  );
  return file;
}
