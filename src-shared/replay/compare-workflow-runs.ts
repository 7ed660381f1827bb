import { z } from 'zod';
import type { RunEvent } from '../contracts/events';
import { canonicalJson } from '../util/canonical-json';
import { compareDecisions, RoundComparison } from './compare-runs';
import { describeDifference } from './describe-difference';
import { roundDecisions } from './round-decisions';
import { invocationEvents } from './workflow-replay';
import { roundNumber } from '../contracts/round-number';

const where = {
  /** The invocation (`classify[each-file=2]`). */
  invocation: z.string(),
  node: z.string(),
  /** The item of the innermost iterate it ran for (from 0), when it ran for one. */
  item: z.number().int().nonnegative().optional(),
};

/**
 * Where a workflow replay differs from its recorded run, per node invocation: a round's decisions
 * (an agent's or a tool node's: decision, verdict, authorization, executed, outcome), or the
 * invocation's end (its status and outputs; absent: the run never ran it).
 */
export const NodeDifference = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('round'), ...where, comparison: RoundComparison }).strict(),
  z.object({ kind: z.literal('output'), ...where, recorded: z.string().optional(), replayed: z.string().optional() }).strict(),
]);
export type NodeDifference = z.infer<typeof NodeDifference>;

interface InvocationView {
  node: string;
  /** When it started to run (its first event past pending; pending only: never), so differences read in run order. */
  ran: number;
  item?: number;
  /** Its last status with its outputs (done) or failure code: what the invocation ended as. */
  end?: string;
}

function invocations(events: readonly RunEvent[]): Map<string, InvocationView> {
  const out = new Map<string, InvocationView>();
  events.forEach((e, at) => {
    if (e.type !== 'node.invocation' || e.invocation_id === undefined) return;
    const view = out.get(e.invocation_id) ?? { node: e.node, ran: Infinity, ...(e.lineage.length > 0 ? { item: e.lineage[e.lineage.length - 1]?.index } : {}) };
    if (e.status !== 'pending') view.ran = Math.min(view.ran, at);
    // Pending and running say nothing of what it made; skipped and the ends do.
    if (e.status !== 'pending' && e.status !== 'running') {
      view.end = e.status === 'done' ? canonicalJson(e.outputs ?? {}) : `${e.status}${e.failure ? ` (${e.failure.code})` : ''}`;
    }
    out.set(e.invocation_id, view);
  });
  return out;
}

/** Two workflow runs' events compared invocation by invocation: only what differs, in the recorded run's order. */
export function workflowDifferences(recorded: readonly RunEvent[], replayed: readonly RunEvent[]): NodeDifference[] {
  const a = invocations(recorded);
  const b = invocations(replayed);
  const out: NodeDifference[] = [];
  const order = (m: Map<string, InvocationView>) => [...m.entries()].sort(([, x], [, y]) => x.ran - y.ran).map(([id]) => id);
  for (const id of new Set([...order(a), ...order(b)])) {
    const left = a.get(id);
    const right = b.get(id);
    const view = (left ?? right) as InvocationView;
    const at = { invocation: id, node: view.node, ...(view.item !== undefined ? { item: view.item } : {}) };
    for (const comparison of compareDecisions(roundDecisions(invocationEvents(recorded, id)), roundDecisions(invocationEvents(replayed, id)))) {
      if (comparison.kind !== 'same') out.push({ kind: 'round', ...at, comparison });
    }
    if (left?.end !== right?.end) out.push({ kind: 'output', ...at, ...(left?.end !== undefined ? { recorded: left.end } : {}), ...(right?.end !== undefined ? { replayed: right.end } : {}) });
  }
  return out;
}

/** How many node invocations either run has (the "of N" in a summary). */
export function invocationCount(recorded: readonly RunEvent[], replayed: readonly RunEvent[]): number {
  return new Set([...invocations(recorded).keys(), ...invocations(replayed).keys()]).size;
}

const shown = (value: string | undefined) => (value === undefined ? 'not run' : value.length > 80 ? `${value.slice(0, 77)}…` : value);

/** Where: the node, its item, the round (numbered from 1, as every screen shows rounds). */
export function nodeDifferencePlace(d: NodeDifference): string {
  const item = d.item !== undefined ? ` · item ${d.item + 1}` : '';
  return d.kind === 'round' ? `${d.node}${item} · round ${roundNumber(d.comparison.round)}` : `${d.node}${item}`;
}

/** What differs, in words (the CLI and the app say it the same way). */
export function describeNodeDifference(d: NodeDifference): string {
  return d.kind === 'round' ? describeDifference(d.comparison) : `ended ${shown(d.recorded)} → ${shown(d.replayed)}`;
}
