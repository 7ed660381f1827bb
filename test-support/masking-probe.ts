import { AgentSpec } from '../src-shared/contracts/spec';

/**
 * An agent that writes with the real filesystem MCP server, `write_file`'s `content` declared sensitive: the probe
 * of the tests that plant a value there and look for it wherever the run shows or stores something.
 */
export function maskingProbeSpec(): AgentSpec {
  return AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'masking-probe',
    name: 'Masking probe',
    instructions: 'Write in ${workspace}.',
    task: 'Write the note.',
    workspace: 'notes-sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['write_file', 'list_directory'] }],
    tool_effects: { 'fs/write_file': { effect: 'reversible_write', sensitive_arguments: ['content'] } },
    supervision: { phase: 2 },
  });
}
