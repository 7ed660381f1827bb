import { describe, expect, it } from 'vitest';
import { ToolNode } from './document';
import { documentProblems, leavesWorkspace } from './document-checks';

const schema = { type: 'object', properties: { path: { type: 'string' }, depth: { type: 'number' } }, required: ['path'] };
const tool = (args: Record<string, unknown>) => ToolNode.parse({ id: 'read', kind: 'tool', server: 'fs', tool: 'list', arguments: args });
const check = (args: Record<string, unknown>) =>
  documentProblems([tool(args)], { tools: { fs: [{ name: 'list', input_schema: schema }] }, workspaceServers: new Set(['fs']), workspace: '/home/me/ws' }).map((p) => p.message);

describe('document checks', () => {
  it('a path is outside the workspace when absolute elsewhere or climbing above it; inside otherwise', () => {
    expect(['../x', 'a/../../x', '/etc/passwd', '~/x', 'C:\\x'].map((p) => leavesWorkspace(p, '/home/me/ws'))).toEqual([true, true, true, true, true]);
    expect(['.', 'a/b', 'a/../b', '/home/me/ws/notes.md'].map((p) => leavesWorkspace(p, '/home/me/ws'))).toEqual([false, false, false, false]);
    expect(leavesWorkspace('/home/me/ws/../other', '/home/me/ws')).toBe(true);
  });

  it('an unknown argument, a missing one and a wrong type are named; a templated value is left for the run', () => {
    expect(check({ path: 'a', colour: 'red' })).toEqual(['list takes no argument "colour" (it takes "path", "depth")']);
    expect(check({ depth: 1 })).toEqual(['list needs the argument "path"']);
    expect(check({ path: 'a', depth: 'deep' })[0]).toMatch(/argument "depth" must be number/);
    expect(check({ path: '{{dir}}', depth: '{{n}}' })).toEqual([]);
  });

  it('a templated path is not judged before the run', () => {
    expect(check({ path: '{{entry.name}}/../..' })).toEqual([]);
  });
});
