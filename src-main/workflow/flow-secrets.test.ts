import { describe, expect, it } from 'vitest';
import { MASK } from '@shared/util/mask';
import { WorkflowGraph } from '@shared/workflow/document';
import { SecretRegistry } from '../credentials/secret-registry';
import { FlowSecrets } from './flow-secrets';

/** Issue 27: what a run masks of a value bound for a sensitive argument, long or short, whole or by key. */

const edge = (from: string, fromPort: string, to: string, toPort: string) => ({ from: { node: from, port: fromPort }, to: { node: to, port: toPort } });

const GRAPH = WorkflowGraph.parse({
  format: 'steward/v1',
  kind: 'workflow',
  id: 'vault',
  name: 'Vault',
  servers: [{ id: 'vault', command: 'vault-mcp' }],
  tool_effects: { 'vault/unlock': { effect: 'irreversible_write', sensitive_arguments: ['pin'] } },
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'code', type: 'any' }, { name: 'account', type: 'object' }, { name: 'door', type: 'text' }] },
    { id: 'unlock', kind: 'tool', server: 'vault', tool: 'unlock', inputs: [{ name: 'code' }, { name: 'account', type: 'object' }, { name: 'door', type: 'text' }], arguments: { pin: '{{code}}', auth: '{{account}}', door: '{{door}}' } },
    { id: 'say', kind: 'template', inputs: [{ name: 'code' }, { name: 'door', type: 'text' }], template: 'code {{code}} opens {{door}}' },
    { id: 'out', kind: 'output', fields: [{ name: 'said' }, { name: 'code' }] },
  ],
  edges: [
    edge('in', 'code', 'unlock', 'code'),
    edge('in', 'account', 'unlock', 'account'),
    edge('in', 'door', 'unlock', 'door'),
    edge('in', 'code', 'say', 'code'),
    edge('in', 'door', 'say', 'door'),
    edge('say', 'output', 'out', 'said'),
    edge('in', 'code', 'out', 'code'),
  ],
});

describe('FlowSecrets', () => {
  it('masks a long value by value everywhere (the registry), and where the flow puts it', () => {
    const secrets = new SecretRegistry();
    const flow = new FlowSecrets(GRAPH, secrets);
    flow.entered({ code: 'kestrel-77', door: 'front' });
    expect(flow.maskFields({ code: 'kestrel-77', door: 'front' })).toEqual({ code: MASK, door: 'front' });
    expect(secrets.maskText('the code is kestrel-77')).toBe(`the code is ${MASK}`);
    // Where the flow put it; inside `said` the registry masks it as the run emits it.
    expect(flow.maskRunOutputs({ said: 'code kestrel-77 opens front', code: 'kestrel-77' })).toEqual({ said: 'code kestrel-77 opens front', code: MASK });
  });

  it('a short value or a number is masked where the flow puts it, and by value only in what the nodes it reaches show', () => {
    const secrets = new SecretRegistry();
    const flow = new FlowSecrets(GRAPH, secrets);
    flow.entered({ code: 4821, door: 'back' });
    // Too short to search everywhere: the registry leaves it.
    expect(secrets.maskText('4821')).toBe('4821');
    expect(flow.maskFields({ code: 4821, door: 'back' })).toEqual({ code: MASK, door: 'back' });
    expect(flow.maskInputs('say', { code: 4821, door: 'back' })).toEqual({ code: MASK, door: 'back' });
    expect(flow.maskOutputs('say', { output: 'code 4821 opens back' })).toEqual({ output: `code ${MASK} opens back` });
    expect(flow.maskText('say', 'no door for 4821')).toBe(`no door for ${MASK}`);
    expect(flow.maskRunOutputs({ said: 'code 4821 opens back', code: 4821 })).toEqual({ said: `code ${MASK} opens back`, code: MASK });
  });

  it('an object placed whole outside the sensitive argument has its own keys of that name masked, and only those', () => {
    const secrets = new SecretRegistry();
    const flow = new FlowSecrets(GRAPH, secrets);
    const account = { name: 'Ada', pin: 'lark-3321', nested: [{ pin: '90210' }] };
    flow.entered({ code: 'x', account });
    expect(flow.maskFields({ account })).toEqual({ account: { name: 'Ada', pin: MASK, nested: [{ pin: MASK }] } });
    expect(flow.maskInputs('unlock', { account })).toEqual({ account: { name: 'Ada', pin: MASK, nested: [{ pin: MASK }] } });
    expect(secrets.maskText('lark-3321 Ada')).toBe(`${MASK} Ada`);
  });

  it('learns again from a checkpoint’s log what it brought in', () => {
    const secrets = new SecretRegistry();
    const flow = new FlowSecrets(GRAPH, secrets);
    flow.replayed([{ type: 'start', inputs: { code: 'heron-5150', door: 'side' } }], () => undefined);
    expect(secrets.maskText('heron-5150')).toBe(MASK);
  });

  it('without a sensitive argument in the graph, masks nothing and costs nothing', () => {
    const plain = WorkflowGraph.parse({ ...GRAPH, tool_effects: {} });
    const flow = new FlowSecrets(plain, new SecretRegistry());
    const inputs = { code: 'kestrel-77' };
    flow.entered(inputs);
    expect(flow.maskFields(inputs)).toBe(inputs);
  });
});
