import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { ReactFlow, ReactFlowProvider } from '@xyflow/react';
import { StartConnect } from './connect-context';
import { connectTargets, pickerKey } from './connect-targets';
import { ConnectPicker } from './ConnectPicker';
import { edgeOfConnection, toFlowEdges, toFlowNodes } from './flow-convert';
import { addNode, connect, type Draft } from './graph-edit';
import { indexProblems } from './problems';
import { NODE_TYPES } from './StepNode';
import { newWorkflowDraft } from './workflow-file';

/** The new workflow (input.text → output.result) with an assert and an iterate added. */
function draft(): Draft {
  const withAssert = addNode(newWorkflowDraft([]), 'assert', { x: 200, y: 300 }).draft;
  return addNode(withAssert, 'iterate', { x: 500, y: 300 }).draft;
}

describe('connecting ports by keyboard', () => {
  it('each output port on a node is a button named for what it does; an input port is not', () => {
    const nodes = toFlowNodes(draft(), indexProblems([])).map((n) => ({ ...n, width: 220, height: 120 }));
    const html = renderToStaticMarkup(
      <StartConnect.Provider value={() => undefined}>
        <ReactFlowProvider initialNodes={nodes} initialEdges={toFlowEdges(draft(), indexProblems([]))} initialWidth={1000} initialHeight={600}>
          <ReactFlow nodes={nodes} nodeTypes={NODE_TYPES} width={1000} height={600} />
        </ReactFlowProvider>
      </StartConnect.Provider>,
    );
    expect(html).toMatch(/<button[^>]*aria-label="Connect output text of input to an input"[^>]*data-testid="connect-input-text"/);
    expect(html).toMatch(/<button[^>]*aria-label="Connect output value of assert to an input"/);
    expect(html).not.toContain('data-testid="connect-output-');
    // React Flow leaves the button its keys (nokey) and a press is no drag (nodrag).
    expect(html).toMatch(/class="[^"]*nodrag[^"]*nokey[^"]*"[^>]*data-testid="connect-input-text"/);
  });

  it('lists the inputs of other nodes that the port may feed, the rule a drag follows, and says which it replaces', () => {
    const targets = connectTargets(draft(), { node: 'input', port: 'text' });
    // Not the iterate's list input (text does not flow into a list), not a port of its own node.
    expect(targets.map((t) => `${t.to.node}.${t.to.port}`)).toEqual(['output.result', 'assert.value']);
    expect(targets[0]).toMatchObject({ connected: true });
    const fromAssert = connectTargets(draft(), { node: 'assert', port: 'value' });
    expect(fromAssert.find((t) => t.to.node === 'output')).toMatchObject({ connected: false, replaces: { node: 'input', port: 'text' }, label: 'output · result (any)' });
    expect(fromAssert.some((t) => t.to.node === 'assert')).toBe(false);
  });

  it('the picker is a labelled dialog with a listbox of the targets, the first one active', () => {
    const html = renderToStaticMarkup(<ConnectPicker draft={draft()} from={{ node: 'assert', port: 'value' }} onConnect={() => undefined} onClose={() => undefined} />);
    expect(html).toMatch(/role="dialog" aria-label="Connect assert · value to"/);
    expect(html).toMatch(/role="listbox" aria-labelledby="[^"]+" tabindex="0"[^>]*aria-activedescendant="([^"]+)"/);
    const active = /aria-activedescendant="([^"]+)"/.exec(html)?.[1];
    expect(html).toMatch(new RegExp(`id="${active}" role="option" aria-selected="true"[^>]*>output · result \\(any\\)<span class="muted"> · replaces input · text`));
    // Any value flows into the iterate's list, the second option.
    expect(html).toMatch(/role="option" aria-selected="false" class="[^"]*"[^>]*data-testid="connect-target-iterate-list">iterate · list \(list\)/);
  });

  it('with nothing to connect to it says so, and still offers Cancel', () => {
    const lone = addNode({ ...newWorkflowDraft([]), nodes: [], edges: [] }, 'input', { x: 0, y: 0 }).draft;
    const html = renderToStaticMarkup(<ConnectPicker draft={lone} from={{ node: 'input', port: 'text' }} onConnect={() => undefined} onClose={() => undefined} />);
    expect(html).toContain('No input of another node takes this port');
    expect(html).toContain('data-testid="connect-cancel"');
    expect(html).not.toContain('role="listbox"');
  });

  it('keys work as in a listbox: arrows move and wrap, Home and End jump, Enter or Space picks, Escape cancels', () => {
    expect(pickerKey('ArrowDown', 0, 3)).toEqual({ active: 1 });
    expect(pickerKey('ArrowDown', 2, 3)).toEqual({ active: 0 });
    expect(pickerKey('ArrowUp', 0, 3)).toEqual({ active: 2 });
    expect(pickerKey('End', 0, 3)).toEqual({ active: 2 });
    expect(pickerKey('Home', 2, 3)).toEqual({ active: 0 });
    expect(pickerKey('Enter', 1, 3)).toEqual({ active: 1, pick: 1 });
    expect(pickerKey(' ', 2, 3)).toEqual({ active: 2, pick: 2 });
    expect(pickerKey('Enter', 0, 0)).toEqual({ active: 0 });
    expect(pickerKey('Escape', 1, 3)).toEqual({ active: 1, close: true });
    expect(pickerKey('a', 1, 3)).toBeUndefined();
  });

  it('a picked target becomes the same edge a drag makes, replacing what fed that input', () => {
    const [target] = connectTargets(draft(), { node: 'assert', port: 'value' });
    // The editor hands the pick to its drag handler as a React Flow connection.
    const edge = edgeOfConnection({ source: 'assert', sourceHandle: 'value', target: target!.to.node, targetHandle: target!.to.port });
    const next = connect(draft(), edge!);
    expect(next.edges).toEqual([{ from: { node: 'assert', port: 'value' }, to: { node: 'output', port: 'result' } }]);
  });
});
