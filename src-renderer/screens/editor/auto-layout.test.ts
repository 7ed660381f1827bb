import { describe, expect, it } from 'vitest';
import { addNode, connect, type Draft } from './graph-edit';
import { autoLayout, sizesOf } from './auto-layout';
import { commit, startHistory, undo } from './history';
import { newWorkflowDraft } from './workflow-file';

/** input → assert → output, the assert added on top of the input and the output left of both. */
function tangled(): Draft {
  const added = addNode(newWorkflowDraft([]), 'assert', { x: 0, y: 80 });
  let d = connect(added.draft, { from: { node: 'input', port: 'text' }, to: { node: 'assert', port: 'value' } });
  d = connect(d, { from: { node: 'assert', port: 'value' }, to: { node: 'output', port: 'result' } });
  return { ...d, nodes: d.nodes.map((n) => (n.id === 'output' ? { ...n, position: { x: -300, y: 500 } } : n)) };
}

describe('auto-layout on demand', () => {
  it('lays the graph out left to right from where its top-left corner was, with the measured sizes', () => {
    const sizes = sizesOf([{ id: 'input', measured: { width: 200, height: 90 } }, { id: 'assert', measured: { width: 260, height: 120 } }, { id: 'output' }]);
    const laid = autoLayout(tangled(), sizes);
    const at = Object.fromEntries(laid.nodes.map((n) => [n.id, n.position!]));
    expect(at.input!.x).toBe(-300);
    expect(at.assert!.x).toBeGreaterThanOrEqual(at.input!.x + 200);
    expect(at.output!.x).toBeGreaterThanOrEqual(at.assert!.x + 260);
    expect(Math.min(...laid.nodes.map((n) => n.position!.y))).toBe(80);
    expect(laid.edges).toEqual(tangled().edges);
  });

  it('is one undo step, and laying out a laid-out graph again adds none', () => {
    const start = startHistory(tangled());
    const laid = commit(start, autoLayout(start.present, sizesOf([])));
    expect(laid.past).toHaveLength(1);
    expect(undo(laid).present).toEqual(tangled());
    expect(commit(laid, autoLayout(laid.present, sizesOf([])))).toBe(laid);
  });
});
