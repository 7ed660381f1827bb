import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { ReactFlow, ReactFlowProvider } from '@xyflow/react';
import { addNode } from './graph-edit';
import { toFlowEdges, toFlowNodes } from './flow-convert';
import { indexProblems } from './problems';
import { NODE_TYPES } from './StepNode';
import { newWorkflowDraft } from './workflow-file';

function render(draft: ReturnType<typeof newWorkflowDraft>, problems: Parameters<typeof indexProblems>[0] = [], states = {}) {
  const index = indexProblems(problems);
  // Sizes given so React Flow renders the nodes without measuring them (no layout on the server).
  const nodes = toFlowNodes(draft, index, states).map((n) => ({ ...n, width: 220, height: 120 }));
  const edges = toFlowEdges(draft, index);
  const html = renderToStaticMarkup(
    <ReactFlowProvider initialNodes={nodes} initialEdges={edges} initialWidth={1000} initialHeight={600}>
      <ReactFlow nodes={nodes} edges={edges} nodeTypes={NODE_TYPES} width={1000} height={600} />
    </ReactFlowProvider>,
  );
  return html;
}

describe('a node on the canvas', () => {
  it('shows its kind, its label and each port with a handle named by the port', () => {
    const draft = addNode(newWorkflowDraft([]), 'iterate', { x: 0, y: 0 }).draft;
    const html = render(draft);
    expect(html).toContain('data-testid="node-iterate"');
    expect(html).toContain('Iterate');
    expect(html).toMatch(/data-testid="port-iterate-in-list".*data-handleid="list"/s);
    expect(html).toMatch(/data-testid="port-iterate-out-item".*data-handleid="item"/s);
  });

  it('shows its problems in words, a port problem marked by the port', () => {
    const html = render(newWorkflowDraft([]), [
      { node: 'output', code: 'c', message: 'the workflow has trouble here' },
      { node: 'output', port: 'result', code: 'c', message: 'the required input "result" is not connected' },
    ]);
    expect(html).toMatch(/data-testid="problem-output"[^>]*>.*the workflow has trouble here.*result: the required input/s);
    expect(html).toMatch(/data-testid="port-output-in-result".*wf-node__port-problem/s);
  });

  it('during a run shows the node state with counts for an iterated node', () => {
    const html = render(newWorkflowDraft([]), [], { output: { status: 'running', counts: { done: 3, running: 2 }, total: 5 } });
    expect(html).toContain('data-status="running"');
    expect(html).toContain('3/5 done · 2 running');
  });
});
