import type { DragEvent } from 'react';
import { NODE_KINDS, type NodeKind } from '@shared/workflow/document';
import { NODE_KIND_LABELS } from '@shared/workflow/ports';

export const DRAG_TYPE = 'application/x-steward-node-kind';

const HINTS: Record<NodeKind, string> = {
  input: 'Typed run inputs: the run form',
  agent: 'A supervised agent: student proposes, teacher reviews',
  pattern: 'A team of agents whose output is judged before it leaves',
  tool: 'One MCP tool call through the boundary',
  template: 'Text or JSON from its inputs',
  assert: 'Checks a value; fails the node when one does not hold',
  iterate: 'Fans out over a list',
  collect: 'Gathers the items back into a list',
  workflow: 'One of your stored workflows as a step: its own run, supervised inside',
  output: 'What the run returns',
};

/** The node kinds: drag one onto the canvas, or press it (click, Enter, Space) to add it in view. */
export function Palette({ onAdd }: { onAdd: (kind: NodeKind) => void }) {
  const drag = (kind: NodeKind) => (e: DragEvent) => {
    e.dataTransfer.setData(DRAG_TYPE, kind);
    e.dataTransfer.effectAllowed = 'move';
  };
  return (
    <nav className="wf-palette" aria-label="Add a node">
      <h2 className="wf-palette__title">Nodes</h2>
      {NODE_KINDS.map((kind) => (
        <button key={kind} type="button" className={`wf-palette__item wf-palette__item--${kind}`} draggable onDragStart={drag(kind)} onClick={() => onAdd(kind)} title={HINTS[kind]} data-testid={`palette-item-${kind}`}>
          <span className="wf-palette__label">{NODE_KIND_LABELS[kind]}</span>
          <span className="wf-palette__hint">{HINTS[kind]}</span>
        </button>
      ))}
    </nav>
  );
}

export function isNodeKind(v: string): v is NodeKind {
  return (NODE_KINDS as readonly string[]).includes(v);
}
