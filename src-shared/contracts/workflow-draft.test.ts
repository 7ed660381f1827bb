import { describe, expect, it } from 'vitest';
import { HostedWorkflowGraph } from '../workflow/hosted-graph';
import { DraftDocument, draftShaped } from './workflow-draft';

const valid = HostedWorkflowGraph.parse({
  format: 'steward/v1',
  kind: 'workflow',
  id: 'w',
  name: 'W',
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }] },
    { id: 'out', kind: 'output', fields: [{ name: 'result' }] },
  ],
  edges: [{ from: { node: 'in', port: 'text' }, to: { node: 'out', port: 'result' } }],
});

describe('a draft is a workflow document, maybe with invalid values', () => {
  it('keeps what a person has half typed: an empty name, a bad id, a node list emptied, two nodes with one id', () => {
    const drafts = [
      valid,
      { ...valid, name: '' },
      { ...valid, id: 'My Workflow' },
      { ...valid, nodes: [] },
      { ...valid, nodes: [valid.nodes[0], { ...valid.nodes[1], id: 'in' }] },
      { ...valid, nodes: [{ ...valid.nodes[0], id: '' }, valid.nodes[1]] },
    ];
    for (const d of drafts) {
      expect(draftShaped(d), JSON.stringify(d).slice(0, 60)).toBe(true);
      expect(DraftDocument.safeParse(d).success).toBe(true);
    }
  });

  it('refuses another shape: a wrong type, an unknown key, a node kind that does not exist, a too large document', () => {
    const others: unknown[] = [
      { ...valid, nodes: 'x' },
      { ...valid, extra: 1 },
      { ...valid, nodes: [{ id: 'x', kind: 'nope' }] },
      { ...valid, format: 'other' },
      { ...valid, description: 'd'.repeat(600_000) },
    ];
    for (const d of others) expect(DraftDocument.safeParse(d).success, JSON.stringify(d).slice(0, 60)).toBe(false);
  });
});
