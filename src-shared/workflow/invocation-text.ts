import type { Lineage } from './invocation';

/**
 * A node invocation as a person reads it, the same on every screen and in the CLI: items counted
 * from 1 ("work · item 2"; nested items "item 2.3"), where the trace's id counts from 0
 * (`work[each=1]`, invocation.ts's `invocationId`).
 */

/** An item's place: "item 2" (1-based), "item 2.3" nested; empty for a node that ran once. */
export function lineageText(lineage: Lineage): string {
  return lineage.length === 0 ? '' : `item ${lineage.map((s) => s.index + 1).join('.')}`;
}

/** "work · item 2", or "work". `node` is what the screen names the node by (its label, or its id). */
export function invocationText(node: string, lineage: Lineage): string {
  const item = lineageText(lineage);
  return item ? `${node} · ${item}` : node;
}

/** `work[each=1,inner=0]` → node and lineage; undefined for text that is not an invocation id with items. */
function parseInvocationId(id: string): { node: string; lineage: Lineage } | undefined {
  const match = /^([^[\]]+)\[([^[\]]+)\]$/.exec(id);
  if (!match) return undefined;
  const lineage: Lineage = [];
  for (const step of (match[2] ?? '').split(',')) {
    const at = step.lastIndexOf('=');
    const index = Number(step.slice(at + 1));
    if (at <= 0 || !Number.isSafeInteger(index) || index < 0) return undefined;
    lineage.push({ iterate: step.slice(0, at), index });
  }
  return { node: match[1] ?? id, lineage };
}

/** An invocation named by its id only (a verdict, an escalation's key) as a person reads it: `work[each=1]` → "work · item 2". */
export function invocationIdText(id: string): string {
  const parsed = parseInvocationId(id);
  return parsed ? invocationText(parsed.node, parsed.lineage) : id;
}
