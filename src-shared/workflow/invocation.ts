import { z } from 'zod';

/**
 * Node invocations: one execution of one node for one lineage. The scheduler (scheduler.ts) is a
 * pure function over (graph, events so far); the host runs what it asks for and reports back.
 * Everything here is recorded as events in the run's journal (`node.*` in contracts/events.ts),
 * so a run can be replayed, resumed after a restart, and shown as one trace.
 */

export const INVOCATION_STATUSES = ['pending', 'running', 'waiting', 'done', 'failed', 'skipped', 'cancelled'] as const;
export const InvocationStatus = z.enum(INVOCATION_STATUSES);
export type InvocationStatus = z.infer<typeof InvocationStatus>;
export const FINAL_INVOCATION_STATUSES = ['done', 'failed', 'skipped', 'cancelled'] as const satisfies readonly InvocationStatus[];

export const INVOCATION_STATUS_LABELS = {
  pending: 'Pending',
  running: 'Running',
  waiting: 'Waiting for you',
  done: 'Done',
  failed: 'Failed',
  skipped: 'Skipped',
  cancelled: 'Cancelled',
} satisfies Record<InvocationStatus, string>;

/** One fan-out level: the iterate node that opened it and the item's index there. Outermost first. */
export const LineageStep = z.object({ iterate: z.string(), index: z.number().int().nonnegative() }).strict();
export type LineageStep = z.infer<typeof LineageStep>;
/** How deep iterates may nest (graph validation refuses deeper). */
export const MAX_LINEAGE_DEPTH = 16;
export const Lineage = z.array(LineageStep).max(MAX_LINEAGE_DEPTH);
export type Lineage = z.infer<typeof Lineage>;

/** Deterministic id: the same node and lineage always get the same id (`summarize`, `extract[list=3]`). */
export function invocationId(node: string, lineage: Lineage): string {
  return lineage.length === 0 ? node : `${node}[${lineage.map((s) => `${s.iterate}=${s.index}`).join(',')}]`;
}

export const Invocation = z
  .object({
    id: z.string().min(1),
    node: z.string().min(1),
    lineage: Lineage,
    /** The invocation whose output started this one (for an item: the iterate's). */
    parent: z.string().optional(),
    inputs: z.record(z.string(), z.unknown()),
  })
  .strict();
export type Invocation = z.infer<typeof Invocation>;

/** Why a node failed, for people and for the workflow supervisor (seed 004) later. */
export const NodeFailure = z
  .object({
    /** e.g. assert_failed, tool_error, agent_failed, invalid_input, template_error. */
    code: z.string().min(1).max(64),
    message: z.string().max(4000),
  })
  .strict();
export type NodeFailure = z.infer<typeof NodeFailure>;
