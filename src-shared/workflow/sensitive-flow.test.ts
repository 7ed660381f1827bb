import { describe, expect, it } from 'vitest';
import { WorkflowGraph, type WorkflowGraphInput } from './document';
import { sensitiveFlow, type PortMask } from './sensitive-flow';

/** Issue 27: which ports carry a value bound for a sensitive argument, read off the graph alone. */

const SECRET_SERVER = { id: 'vault', command: 'vault-mcp' };

function graph(nodes: WorkflowGraphInput['nodes'], edges: WorkflowGraphInput['edges'], sensitive = ['pin']): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'flow',
    name: 'Flow',
    servers: [SECRET_SERVER],
    tool_effects: { 'vault/unlock': { effect: 'irreversible_write', sensitive_arguments: sensitive } },
    nodes,
    edges,
  });
}

const edge = (from: string, fromPort: string, to: string, toPort: string) => ({ from: { node: from, port: fromPort }, to: { node: to, port: toPort } });
const whole = (mask: PortMask | undefined) => mask?.whole === true;
const keys = (mask: PortMask | undefined) => [...(mask?.keys ?? [])].sort();

describe('sensitiveFlow', () => {
  it('traces a sensitive argument back through a template to the input field, and forward to what the value reaches', () => {
    const flow = sensitiveFlow(
      graph(
        [
          { id: 'in', kind: 'input', fields: [{ name: 'pin', type: 'text' }, { name: 'user', type: 'text' }, { name: 'door', type: 'text' }] },
          { id: 'fmt', kind: 'template', inputs: [{ name: 'pin' }, { name: 'user' }], template: '{{user}}:{{pin}}' },
          { id: 'unlock', kind: 'tool', server: 'vault', tool: 'unlock', inputs: [{ name: 'code' }, { name: 'door', type: 'text' }], arguments: { door: '{{door}}', pin: '{{code}}' } },
          { id: 'say', kind: 'template', inputs: [{ name: 'pin' }], template: 'your PIN {{pin}}' },
          { id: 'out', kind: 'output', fields: [{ name: 'said' }, { name: 'door' }] },
        ],
        [edge('in', 'pin', 'fmt', 'pin'), edge('in', 'user', 'fmt', 'user'), edge('fmt', 'output', 'unlock', 'code'), edge('in', 'door', 'unlock', 'door'), edge('in', 'pin', 'say', 'pin'), edge('say', 'output', 'out', 'said'), edge('in', 'door', 'out', 'door')],
      ),
    );
    // Whatever the template writes into `pin` is sensitive: both inputs it uses.
    expect(whole(flow.fields.get('pin'))).toBe(true);
    expect(whole(flow.fields.get('user'))).toBe(true);
    expect(flow.fields.has('door')).toBe(false);
    expect(whole(flow.outputs.get('fmt')?.get('output'))).toBe(true);
    expect(whole(flow.inputs.get('unlock')?.get('code'))).toBe(true);
    expect(flow.inputs.get('unlock')?.has('door')).toBe(false);
    // Forward: the side branch gets the PIN as an input; what it writes is reached (masked by value), not masked whole.
    expect(whole(flow.inputs.get('say')?.get('pin'))).toBe(true);
    expect(flow.outputs.get('say')).toBeUndefined();
    expect([...flow.reached].sort()).toEqual(['fmt', 'out', 'say', 'unlock']);
    expect(flow.inputs.get('out')?.has('door') ?? false).toBe(false);
  });

  it('a whole input placed outside a sensitive key makes its own keys of that name sensitive', () => {
    const flow = sensitiveFlow(
      graph(
        [
          { id: 'in', kind: 'input', fields: [{ name: 'account', type: 'object' }] },
          { id: 'unlock', kind: 'tool', server: 'vault', tool: 'unlock', inputs: [{ name: 'account', type: 'object' }], arguments: { auth: '{{account}}', label: 'for {{account.name}}' } },
        ],
        [edge('in', 'account', 'unlock', 'account')],
      ),
    );
    expect(whole(flow.fields.get('account'))).toBe(false);
    expect(keys(flow.fields.get('account'))).toEqual(['pin']);
  });

  it('goes back through assert, collect and iterate, and a stream’s item is its list', () => {
    const flow = sensitiveFlow(
      graph(
        [
          { id: 'in', kind: 'input', fields: [{ name: 'pins', type: 'list' }] },
          { id: 'each', kind: 'iterate' },
          { id: 'check', kind: 'assert', checks: [{ check: 'non_empty' }] },
          { id: 'all', kind: 'collect' },
          { id: 'unlock', kind: 'tool', server: 'vault', tool: 'unlock', inputs: [{ name: 'codes', type: 'list' }], stream: { over: 'codes' }, arguments: { pin: '{{item}}' } },
        ],
        [edge('in', 'pins', 'each', 'list'), edge('each', 'item', 'check', 'value'), edge('check', 'value', 'all', 'item'), edge('all', 'list', 'unlock', 'codes')],
      ),
    );
    expect(whole(flow.inputs.get('unlock')?.get('codes'))).toBe(true);
    expect(whole(flow.fields.get('pins'))).toBe(true);
  });

  it('a tool result bound for a sensitive argument is sensitive where the tool makes it', () => {
    const flow = sensitiveFlow(
      graph(
        [
          { id: 'fetch', kind: 'tool', server: 'vault', tool: 'read', arguments: {} },
          { id: 'unlock', kind: 'tool', server: 'vault', tool: 'unlock', inputs: [{ name: 'token' }], arguments: { pin: '{{token.value}}' } },
        ],
        [edge('fetch', 'result', 'unlock', 'token')],
      ),
    );
    expect(whole(flow.outputs.get('fetch')?.get('result'))).toBe(true);
    expect(flow.fields.size).toBe(0);
  });

  it('nothing is sensitive without a sensitive argument, or when the value only names something else', () => {
    const nodes: WorkflowGraphInput['nodes'] = [
      { id: 'in', kind: 'input', fields: [{ name: 'pin', type: 'text' }] },
      { id: 'unlock', kind: 'tool', server: 'vault', tool: 'unlock', inputs: [{ name: 'pin' }], arguments: { note: 'PIN {{pin}}' } },
    ];
    const flow = sensitiveFlow(graph(nodes, [edge('in', 'pin', 'unlock', 'pin')]));
    expect(flow.fields.size + flow.outputs.size + flow.inputs.size).toBe(0);
    const none = sensitiveFlow(graph(nodes, [edge('in', 'pin', 'unlock', 'pin')], []));
    expect(none.fields.size + none.outputs.size + none.inputs.size).toBe(0);
  });
});
