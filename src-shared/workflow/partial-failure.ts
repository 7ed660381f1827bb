import { z } from 'zod';
import { invocationId, Lineage, NodeFailure, type InvocationStatus } from './invocation';
import { invocationText } from './invocation-text';
import { count as grouped, plural } from '../util/words';

/**
 * A workflow run that got its outputs while some of its work failed (issue 28): an iterate item an
 * assert refused, a branch the outputs did not need. The scheduler calls such a run complete (its
 * outputs got their inputs); a person must not read it as a success, so the host ends it
 * `completed_with_failures` and records here how many items failed, of how many, and where.
 */

/** The failed invocations a run's end lists (the counts cover them all). */
export const MAX_FAILED_PARTS = 50;

export const FailedPart = z
  .object({
    invocation_id: z.string().min(1),
    node: z.string().min(1),
    lineage: Lineage,
    /** Where, as the app names it: "work · item 2" (items counted from 1, nested "item 2.3"). */
    where: z.string().min(1),
    failure: NodeFailure,
  })
  .strict();
export type FailedPart = z.infer<typeof FailedPart>;

const count = z.number().int().nonnegative();

export const PartialFailure = z
  .object({
    /** Items (of an iterate) with a failed invocation. */
    items_failed: count,
    /** Items the iterates those failed items belong to had in all. */
    items: count,
    /** Failed invocations outside any item. */
    nodes_failed: count,
    /** The failed invocations, in the order the run opened them (at most MAX_FAILED_PARTS). */
    failed: z.array(FailedPart).max(MAX_FAILED_PARTS),
  })
  .strict();
export type PartialFailure = z.infer<typeof PartialFailure>;

/** The counts alone: what a run's summary row keeps (the run's end has the rest). */
export const PartialCounts = PartialFailure.pick({ items_failed: true, items: true, nodes_failed: true });
export type PartialCounts = z.infer<typeof PartialCounts>;

/** What the derivation reads of each invocation (a host's record, or an event's view). */
export interface InvocationEnd {
  id: string;
  node: string;
  lineage: Lineage;
  status: InvocationStatus;
  outputs?: Record<string, unknown>;
  failure?: NodeFailure;
}

/**
 * What failed in a run, or undefined when nothing did. `labelOf` names a node as the app does (its
 * label, else its id). Items are counted per iterate invocation: its `count` output, or, when it
 * did not complete its list, the items seen under it.
 */
export function partialFailureOf(ends: Iterable<InvocationEnd>, labelOf: (node: string) => string = (node) => node): PartialFailure | undefined {
  const all = [...ends];
  const failed = all.filter((e) => e.status === 'failed');
  if (failed.length === 0) return undefined;
  // An item is its full lineage; the iterate invocation that opened it is the innermost step's node at the outer lineage.
  const itemKey = (lineage: Lineage) => JSON.stringify(lineage);
  const opener = (lineage: Lineage) => invocationId(lineage.at(-1)?.iterate ?? '', lineage.slice(0, -1));
  const failedItems = new Map<string, Lineage>();
  for (const f of failed) if (f.lineage.length > 0) failedItems.set(itemKey(f.lineage), f.lineage);
  const openers = new Set([...failedItems.values()].map(opener));
  const seen = new Map<string, Set<number>>();
  for (const e of all) {
    for (let depth = 1; depth <= e.lineage.length; depth += 1) {
      const lineage = e.lineage.slice(0, depth);
      const id = opener(lineage);
      if (!openers.has(id)) continue;
      const indexes = seen.get(id) ?? new Set<number>();
      indexes.add(lineage.at(-1)?.index ?? 0);
      seen.set(id, indexes);
    }
  }
  const byId = new Map(all.map((e) => [e.id, e]));
  let items = 0;
  for (const id of openers) {
    const listed = byId.get(id)?.outputs?.count;
    items += Math.max(typeof listed === 'number' ? listed : 0, seen.get(id)?.size ?? 0);
  }
  return {
    items_failed: failedItems.size,
    items,
    nodes_failed: failed.filter((f) => f.lineage.length === 0).length,
    failed: failed.slice(0, MAX_FAILED_PARTS).map((f) => ({
      invocation_id: f.id,
      node: f.node,
      lineage: f.lineage,
      where: invocationText(labelOf(f.node), f.lineage),
      failure: f.failure ?? { code: 'failed', message: 'the node failed' },
    })),
  };
}

/** "1 of 5 items failed", "1 node failed", "2 of 5 items and 1 node failed". */
export function partialCountsText(p: PartialCounts): string {
  const items = p.items_failed > 0 ? `${grouped(p.items_failed)} of ${plural(p.items, 'item', 'items')}` : undefined;
  const nodes = p.nodes_failed > 0 ? plural(p.nodes_failed, 'node', 'nodes') : undefined;
  const what = [items, nodes].filter((x) => x !== undefined).join(' and ');
  return `${what || 'some work'} failed`;
}

/** The run's status in words with its counts: "Completed · 1 of 5 items failed". */
export function partialStatusLabel(p: PartialCounts): string {
  return `Completed · ${partialCountsText(p)}`;
}

/** Where, the first few: "work · item 2, work · item 4 and 3 more". */
export function partialWhereText(p: PartialFailure, shown = 3): string {
  const named = p.failed.slice(0, shown).map((f) => f.where);
  const total = p.items_failed + p.nodes_failed;
  const more = Math.max(0, total - named.length, p.failed.length - named.length);
  return more > 0 ? `${named.join(', ')} and ${more} more` : named.join(', ');
}

/** The run's message: what failed, where, and what that means for its outputs. */
export function partialMessage(p: PartialFailure): string {
  const counts = partialCountsText(p);
  return `${counts[0]?.toUpperCase() ?? ''}${counts.slice(1)}: ${partialWhereText(p)}. The outputs are without what ${p.failed.length === 1 ? 'it' : 'they'} would have given.`;
}
