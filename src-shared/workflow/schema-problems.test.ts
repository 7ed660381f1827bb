import { describe, expect, it } from 'vitest';
import { HostedWorkflowGraph } from './hosted-graph';
import { WorkflowGraph } from './document';
import { schemaProblems } from './schema-problems';
import { formatGraphProblem } from './validate-graph';

const base = {
  format: 'steward/v1',
  kind: 'workflow',
  id: 'w',
  name: 'W',
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'text' }] },
    { id: 'out', kind: 'output', fields: [{ name: 'result' }] },
  ],
};

function words(schema: typeof HostedWorkflowGraph | typeof WorkflowGraph, doc: unknown): string[] {
  const parsed = schema.safeParse(doc);
  if (parsed.success) return [];
  return schemaProblems(doc, parsed.error).map(formatGraphProblem);
}

describe('schema problems in words', () => {
  it('an empty name says the name is required, not Zod text', () => {
    expect(words(HostedWorkflowGraph, { ...base, name: '' })).toEqual(['workflow: name is required']);
  });

  it('a value of the wrong type says what it must be; only a missing or empty one is "required"', () => {
    expect(words(HostedWorkflowGraph, { ...base, name: 42 })).toEqual(['workflow: name must be a string']);
    expect(words(HostedWorkflowGraph, { ...base, name: undefined })).toEqual(['workflow: name is required']);
    const { name: _name, ...nameless } = base;
    expect(words(HostedWorkflowGraph, nameless)).toEqual(['workflow: name is required']);
    // A server entry's `server` given as a number is present, not missing.
    expect(words(HostedWorkflowGraph, { ...base, servers: [{ id: 'fs', server: 7 }] })).toEqual(['workflow: `server` in the first server entry must be a string']);
  });

  it("a tool node the editor just added (no server chosen yet) says its server is required, not how to spell one", () => {
    const doc = { ...base, nodes: [...base.nodes, { id: 'tool', kind: 'tool', server: '', tool: '' }] };
    const out = words(HostedWorkflowGraph, doc);
    expect(out).toContain('node tool: server is required');
    expect(out.join('\n')).not.toMatch(/lowercase/);
    // A server typed badly still gets the pattern's own words.
    expect(words(HostedWorkflowGraph, { ...base, nodes: [...base.nodes, { id: 'tool', kind: 'tool', server: 'My Server', tool: 'read' }] })).toEqual(['node tool: server: use lowercase letters, digits, - and _']);
  });

  it('a field left empty on a node names the node and port', () => {
    const doc = { ...base, nodes: [{ id: 'in', kind: 'input', fields: [{ name: 'Bad Name' }] }, base.nodes[1]] };
    const parsed = HostedWorkflowGraph.safeParse(doc);
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(schemaProblems(doc, parsed.error)[0]).toMatchObject({ node: 'in', port: 'Bad Name', message: expect.stringMatching(/^`name` in the first field: use lowercase/) });
  });

  it('an unknown node kind lists the kinds there are', () => {
    expect(words(HostedWorkflowGraph, { ...base, nodes: [...base.nodes, { id: 'x', kind: 'teleport' }] })[0]).toMatch(/^node x: kind must be one of "input", "agent"/);
  });

  it("an app file's servers read as the CLI format name the unknown field plainly", () => {
    expect(words(WorkflowGraph, { ...base, servers: [{ id: 'fs', server: 'filesystem' }] })).toContain('workflow: the first server entry has an unknown field "server": this format has no such field (remove it)');
  });

  it("a CLI file's servers read as the app's format say in words which entry lacks what, and name the unknown fields (issue 28)", () => {
    const out = words(HostedWorkflowGraph, { ...base, servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['.'] }] });
    expect(out).toContain('workflow: the first server entry has no `server`: name the registered server it uses (its id in the MCP registry)');
    expect(out).toContain('workflow: the first server entry has unknown fields "package", "args": this format has no such field (remove them)');
    expect(out.join('\n')).not.toMatch(/\bservers\.\d/);
  });

  it('a deeper entry is named by its place, its list and its position', () => {
    const doc = { ...base, servers: [{ id: 'fs', server: 'filesystem' }, { id: 'gh', server: 'github', tools: ['x', ''] }] };
    expect(words(HostedWorkflowGraph, doc)).toEqual(['workflow: the second tool name of the second server entry is required']);
    const eleven = { ...base, servers: Array.from({ length: 11 }, (_, i) => (i === 10 ? { id: 's10' } : { id: `s${i}`, server: `r${i}` })) };
    expect(words(HostedWorkflowGraph, eleven)[0]).toMatch(/^workflow: the 11th server entry has no `server`/);
  });

  it('a key that is not spelled like the schema\'s own is counted, never echoed', () => {
    const out = words(HostedWorkflowGraph, { ...base, 'sk-Secret123': 'x' }).join('\n');
    expect(out).not.toContain('sk-Secret123');
    expect(out).toMatch(/an unknown field 1/);
  });
});
