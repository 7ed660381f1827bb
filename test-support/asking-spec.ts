import type { AgentSpecInput } from '../src-shared/contracts/spec';

/** An agent spec on the notes sandbox (read and write tools) for runs whose student asks the person. */
export function askingSpecInput(supervision: AgentSpecInput['supervision'] = { enabled: false }): AgentSpecInput {
  return {
    format: 'steward/v1',
    kind: 'agent',
    id: 'asks-the-user',
    name: 'Asks the user',
    instructions: 'Work in ${workspace}.',
    task: 'Summarise a note.',
    workspace: 'notes-sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file', 'write_file'] }],
    supervision,
  };
}
