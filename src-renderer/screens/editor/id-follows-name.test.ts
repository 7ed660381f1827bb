import { describe, expect, it } from 'vitest';
import type { WorkflowNode } from '@shared/workflow/document';
import { addNode } from './graph-edit';
import { idFollows, slugOf, withFollowingId, workflowIdFor } from './id-follows-name';
import { newWorkflowDraft } from './workflow-file';

/** Types `text` into a node's name one keystroke at a time, as the inspector's Label field does. */
function typeLabel(node: WorkflowNode, text: string, taken: string[], saved = false): WorkflowNode {
  let at = node;
  for (let i = 1; i <= text.length; i++) at = withFollowingId(at, { ...at, label: text.slice(0, i) }, taken, saved);
  return at;
}

describe('the Id follows the Name until the person edits it', () => {
  it('a name becomes an id of lowercase letters, digits and -', () => {
    expect(slugOf('Read my notes')).toBe('read-my-notes');
    expect(slugOf('  Résumé: v2! ')).toBe('resume-v2');
    expect(slugOf('!!!')).toBe('');
    expect(slugOf('x'.repeat(80))).toHaveLength(64);
  });

  it("a new node's id follows its name as it is typed, kept unique among the other nodes", () => {
    const { draft, id } = addNode(newWorkflowDraft([]), 'agent', { x: 0, y: 0 });
    const node = draft.nodes.find((n) => n.id === id);
    if (!node) throw new Error('added');
    expect(node.id).toBe('agent');
    expect(typeLabel(node, 'Summarize notes', ['input', 'output', 'agent']).id).toBe('summarize-notes');
    expect(typeLabel(node, 'Input', ['input', 'output', 'agent']).id).toBe('input-2');
  });

  it('once the person typed an id of their own, a new name leaves it', () => {
    const node: WorkflowNode = { id: 'mine', kind: 'collect', label: 'Gather' };
    expect(withFollowingId(node, { ...node, label: 'Gather all' }, ['mine'], false).id).toBe('mine');
  });

  it('clearing the name goes back to the kind, and the id follows again from there', () => {
    const node: WorkflowNode = { id: 'gather', kind: 'collect', label: 'Gather' };
    const cleared = withFollowingId(node, { ...node, label: undefined }, [], false);
    expect(cleared.id).toBe('collect');
    expect(idFollows(cleared.id, '', 'collect')).toBe(true);
  });

  it('a node of the saved workflow keeps its id (runs and settings know it by that)', () => {
    const node: WorkflowNode = { id: 'gather', kind: 'collect', label: 'Gather' };
    expect(withFollowingId(node, { ...node, label: 'Collect all' }, [], true).id).toBe('gather');
  });

  it("a new workflow's id follows its name; one the person typed stays", () => {
    expect(workflowIdFor('my-workflow', 'My workflow', 'Weekly report')).toBe('weekly-report');
    expect(workflowIdFor('my-workflow-2', 'My workflow', 'Weekly report')).toBe('weekly-report');
    expect(workflowIdFor('reports', 'My workflow', 'Weekly report')).toBe('reports');
    expect(workflowIdFor('weekly-report', 'Weekly report', '')).toBe('my-workflow');
  });
});
