import type { Edge } from '@shared/workflow/document';
import { portsOf } from '@shared/workflow/ports';
import { canConnect } from './flow-convert';
import type { Draft } from './graph-edit';

export type PortRef = Edge['from'];

/** One input an output port may connect to, as the keyboard picker lists it. */
export interface ConnectTarget {
  to: PortRef;
  /** "Output output · result (any)": the node's label or id, then the port and its type. */
  label: string;
  /** What is connected to this input now (an input takes one edge: connecting replaces it). */
  replaces?: PortRef;
  /** Already connected from this very port. */
  connected: boolean;
}

/**
 * The inputs of other nodes that `from` may connect to — the same rule a drag follows (canConnect) —
 * in document order, so the list reads like the canvas's document.
 */
export function connectTargets(draft: Draft, from: PortRef): ConnectTarget[] {
  return draft.nodes.flatMap((node) =>
    portsOf(node).inputs.flatMap((port) => {
      const to = { node: node.id, port: port.name };
      if (!canConnect(draft, { from, to })) return [];
      const into = draft.edges.find((e) => e.to.node === to.node && e.to.port === to.port);
      const connected = into !== undefined && into.from.node === from.node && into.from.port === from.port;
      return [{ to, label: `${node.label ?? node.id} · ${port.name} (${port.type})`, connected, ...(into && !connected ? { replaces: into.from } : {}) }];
    }),
  );
}

export type PickerKey = { active: number; pick?: number; close?: true };

/** The picker's keys, as a listbox's: arrows move (wrapping), Home/End jump, Enter or Space picks, Escape closes. */
export function pickerKey(key: string, active: number, count: number): PickerKey | undefined {
  switch (key) {
    case 'ArrowDown':
      return { active: count === 0 ? 0 : (active + 1) % count };
    case 'ArrowUp':
      return { active: count === 0 ? 0 : (active - 1 + count) % count };
    case 'Home':
      return { active: 0 };
    case 'End':
      return { active: Math.max(0, count - 1) };
    case 'Enter':
    case ' ':
      return count > 0 ? { active, pick: active } : { active };
    case 'Escape':
      return { active, close: true };
    default:
      return undefined;
  }
}
