import { describe, expect, it } from 'vitest';
import { WorkflowGraph } from '@shared/workflow/document';
import { checkInputs } from './run-inputs';

/** Issue 27: a run's inputs are read as own keys only; a field named like a prototype member is data, never inherited. */
function graph(names: string[]) {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'w',
    name: 'W',
    nodes: [
      { id: 'in', kind: 'input', fields: names.map((name) => ({ name, type: 'text' })) },
      { id: 'out', kind: 'output', fields: [{ name: 'result' }] },
    ],
    edges: [{ from: { node: 'in', port: names[0] }, to: { node: 'out', port: 'result' } }],
  });
}

describe('checkInputs', () => {
  it('a required field named constructor is missing when not given, not filled from Object.prototype', () => {
    const result = checkInputs(graph(['constructor']), {});
    expect(result).toEqual({ ok: false, message: expect.stringContaining('input constructor is required') });
  });

  it('a value given for a field named __proto__ is kept as that field, not turned into a prototype', () => {
    const given = JSON.parse('{"__proto__": "x"}') as Record<string, unknown>;
    const result = checkInputs(graph(['__proto__']), given);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(Object.keys(result.inputs)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(result.inputs)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(result.inputs, '__proto__')?.value).toBe('x');
  });
});
