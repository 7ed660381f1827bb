import { describe, expect, it } from 'vitest';
import { addNode } from './graph-edit';
import { canConnect, edgeOfConnection, runStateText, toFlowEdges, toFlowNodes } from './flow-convert';
import { indexProblems } from './problems';
import { newWorkflowDraft } from './workflow-file';

describe('graph to React Flow', () => {
  it('edges connect the handles named by their ports, and carry their position in the document', () => {
    const [edge] = toFlowEdges(newWorkflowDraft([]), indexProblems([]));
    expect(edge).toMatchObject({ source: 'input', sourceHandle: 'text', target: 'output', targetHandle: 'result', data: { index: 0 } });
    expect(edgeOfConnection({ source: 'a', sourceHandle: 'x', target: 'b', targetHandle: null })).toBeNull();
  });

  it('a port problem sits by its port; one naming a port the node does not show goes on the node', () => {
    const index = indexProblems([
      { node: 'output', port: 'result', code: 'c', message: 'by the port' },
      { node: 'output', port: 'ghost', code: 'c', message: 'uses {{ghost}}' },
    ]);
    const output = toFlowNodes(newWorkflowDraft([]), index).find((n) => n.id === 'output');
    expect(output?.data.portProblems).toEqual({ result: ['by the port'] });
    expect(output?.data.problems).toEqual(['uses {{ghost}}']);
  });

  it('an edge keeps its flow id when an edge before it is removed (its selection stays on it), and a repeated edge gets its own', () => {
    const draft = newWorkflowDraft([]);
    const edge = { from: { node: 'input', port: 'text' }, to: { node: 'output', port: 'result' } };
    const twice = { ...draft, edges: [{ from: { node: 'input', port: 'text' }, to: { node: 'output', port: 'x' } }, edge, edge] };
    const ids = toFlowEdges(twice, indexProblems([])).map((e) => e.id);
    expect(new Set(ids).size).toBe(3);
    expect(toFlowEdges({ ...twice, edges: twice.edges.slice(1) }, indexProblems([]))[0]?.id).toBe(ids[1]);
  });

  it('an edge problem labels the edge', () => {
    const [edge] = toFlowEdges(newWorkflowDraft([]), indexProblems([{ edge: 0, code: 'c', message: 'no flow' }]));
    expect(edge?.label).toBe('⚠ no flow');
    const [long] = toFlowEdges(newWorkflowDraft([]), indexProblems([{ edge: 0, code: 'c', message: 'x'.repeat(200) }]));
    expect(String(long?.label).length).toBeLessThanOrEqual(62);
    expect(long?.ariaLabel).toContain('x'.repeat(200));
  });

  it('a node is named for a screen reader by its kind, title, ports, problems and run state', () => {
    const index = indexProblems([
      { node: 'output', port: 'result', code: 'c', message: 'not connected' },
      { node: 'output', code: 'c', message: 'no fields' },
    ]);
    const nodes = toFlowNodes(newWorkflowDraft([]), index, { input: { status: 'done', counts: { done: 1 }, total: 1 } });
    expect(nodes.find((n) => n.id === 'input')?.ariaLabel).toBe('Input node “input”; outputs: text; Done');
    expect(nodes.find((n) => n.id === 'output')?.ariaLabel).toBe('Output node “output”; inputs: result; 2 problems');
  });

  it('a drag may connect ports whose types flow, never a node to itself', () => {
    const draft = addNode(newWorkflowDraft([]), 'iterate', { x: 0, y: 0 }).draft;
    expect(canConnect(draft, { from: { node: 'input', port: 'text' }, to: { node: 'output', port: 'result' } })).toBe(true);
    expect(canConnect(draft, { from: { node: 'input', port: 'text' }, to: { node: 'iterate', port: 'list' } })).toBe(false);
    expect(canConnect(draft, { from: { node: 'iterate', port: 'item' }, to: { node: 'iterate', port: 'list' } })).toBe(false);
  });
});

describe('node run states', () => {
  it('a node that ran once shows its status; an iterated one its counts', () => {
    expect(runStateText({ status: 'waiting', counts: { waiting: 1 }, total: 1 })).toBe('Waiting for you');
    expect(runStateText({ status: 'running', counts: { done: 3, running: 1, failed: 1 }, total: 5 })).toBe('3/5 done · 1 running · 1 failed');
  });
});
