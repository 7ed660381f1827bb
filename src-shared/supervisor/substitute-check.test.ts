import { describe, expect, it } from 'vitest';
import { WorkflowNode } from '../workflow/document';
import { checkSubstitute, validatorCoversOutput } from './substitute-check';

const agent = WorkflowNode.parse({ id: 'write', kind: 'agent', instructions: 'Help.', task: 'Write it.' });
const tool = WorkflowNode.parse({ id: 'fetch', kind: 'tool', server: 'web', tool: 'get' });
const textTemplate = WorkflowNode.parse({ id: 'fmt', kind: 'template', template: 'x' });
const jsonTemplate = WorkflowNode.parse({ id: 'obj', kind: 'template', format: 'json', template: {} });

describe('the substitute validator', () => {
  it('covers a node only when every output port has a checkable type: an agent or a text template, not a tool or a JSON template', () => {
    expect(validatorCoversOutput(agent)).toBe(true);
    expect(validatorCoversOutput(textTemplate)).toBe(true);
    expect(validatorCoversOutput(tool)).toBe(false);
    expect(validatorCoversOutput(jsonTemplate)).toBe(false);
  });

  it('accepts exactly the declared ports with values of their types', () => {
    expect(checkSubstitute(agent, { output: 'the summary' })).toEqual({ ok: true });
    expect(checkSubstitute(agent, { output: 42 })).toEqual({ ok: false, problems: 'output: expected text' });
    expect(checkSubstitute(agent, {})).toEqual({ ok: false, problems: 'output: missing' });
    expect(checkSubstitute(agent, { output: 'x', extra: 1 })).toEqual({ ok: false, problems: 'extra: not an output of write' });
  });

  it('never accepts a value for a port it cannot check', () => {
    expect(checkSubstitute(tool, { result: { anything: true }, text: 'ok' })).toEqual({ ok: false, problems: 'result: cannot be checked' });
  });
});
