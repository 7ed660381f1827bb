import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { ReactFlow, ReactFlowProvider } from '@xyflow/react';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { deriveInvocations, nodeStates } from '../db/derive-invocations';
import { toFlowNodes } from '../screens/editor/flow-convert';
import { indexProblems } from '../screens/editor/problems';
import { NODE_TYPES } from '../screens/editor/StepNode';
import { deriveSupervision } from './derive-supervision';
import { supervisedTrace, supervisedWorkflowDocument } from './testing/supervised-trace';

/** The run's graph as the editor draws it: node states and the supervisor's view from the same events. */
function graphHtml(events: ReturnType<typeof supervisedTrace>): string {
  const draft = HostedWorkflowGraph.parse(supervisedWorkflowDocument());
  const supervision = deriveSupervision(events);
  const nodes = toFlowNodes(draft, indexProblems([]), nodeStates(deriveInvocations(events))).map((n) => {
    const sv = supervision.byNode[n.id];
    return { ...n, width: 220, height: 140, data: sv ? { ...n.data, supervision: sv } : n.data };
  });
  return renderToStaticMarkup(
    <ReactFlowProvider initialNodes={nodes} initialEdges={[]} initialWidth={1600} initialHeight={600}>
      <ReactFlow nodes={nodes} edges={[]} nodeTypes={NODE_TYPES} width={1600} height={600} />
    </ReactFlowProvider>,
  );
}

describe('the supervisor on the run’s graph', () => {
  it('the skipped node carries its shield badge beside its state; the nodes the supervisor never saw carry none', () => {
    const html = graphHtml(supervisedTrace());
    expect(html).toMatch(/data-testid="node-work".*2\/3 done · 1 skipped.*data-testid="supervisor-badge-work" data-action="skip"/s);
    expect(html.match(/data-testid="supervisor-badge-/g)).toHaveLength(1);
  });

  it('while the verdict is out, the node is marked deciding', () => {
    const html = graphHtml(supervisedTrace({ verdict: null }));
    expect(html).toMatch(/class="[^"]*wf-node--deciding[^"]*"[^>]*data-testid="node-work"/);
    expect(html).toContain('data-testid="supervisor-deciding-work"');
  });
});
