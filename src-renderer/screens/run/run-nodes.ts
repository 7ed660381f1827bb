import type { Intervention } from '@shared/contracts/intervention';
import type { RunEvent, RunStatus } from '@shared/contracts/events';
import { FINAL_INVOCATION_STATUSES } from '@shared/workflow/invocation';
import type { RowInvocationStatus } from '@shared/history/run-summary';
import type { WorkflowRunFacts } from '../../db/db';
import { NODE_STATUS_PRECEDENCE, type InvocationView } from '../../db/derive-invocations';
import { plural } from '../../view/format';

/** Counted in the runs list: what needs a look (a quiet end says nothing); a call a person declined is said as such, not as a failure. */
const SUMMARY_STATUSES = ['waiting', 'running', 'failed', 'declined'] as const satisfies readonly RowInvocationStatus[];

/**
 * "5 nodes · 1 waiting": the graph's size and the invocations that wait, run, failed or a person declined. Once the
 * run has ended (`status` final), what had not ended with it was cut off (a host stop).
 */
export function workflowRunSummary(facts: WorkflowRunFacts, status: RunStatus = 'running'): string {
  const ended = status !== 'running' && status !== 'waiting';
  const counts = new Map<RowInvocationStatus, number>();
  let cutOff = 0;
  for (const [s] of Object.values(facts.invocations)) {
    if (ended && s !== 'declined' && !FINAL_INVOCATION_STATUSES.some((f) => f === s)) cutOff += 1;
    else counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  const parts = SUMMARY_STATUSES.flatMap((s) => ((counts.get(s) ?? 0) > 0 ? [`${counts.get(s)} ${s}`] : []));
  return [plural(facts.nodes, 'node'), ...parts, ...(cutOff > 0 ? [`${cutOff} cut off`] : [])].join(' · ');
}

export interface PendingQuestion {
  intervention: Intervention;
  /** The invocation that asked, when the events show it (the host's list does not say). */
  invocation?: InvocationView;
}

/**
 * A workflow run's open questions: those its events show (named by their invocation), plus what
 * the host reports waiting (after a reload or a host restart the host is the authority), minus
 * any answered. Every one is answered through the workflow's run.
 */
export function workflowPending(
  invocations: readonly InvocationView[],
  fromHost: readonly Intervention[] | undefined,
  runId: string,
  answeredIds: ReadonlySet<string> = new Set(),
  finished = false,
): PendingQuestion[] {
  if (finished) return [];
  const askedBy = new Map(invocations.flatMap((v) => (v.intervention ? [[v.intervention.id, v] as const] : [])));
  const byId = new Map<string, PendingQuestion>();
  for (const [id, view] of askedBy) if (view.intervention && !answeredIds.has(id)) byId.set(id, { intervention: view.intervention, invocation: view });
  for (const i of fromHost ?? []) {
    if (i.run_id !== runId || answeredIds.has(i.id)) continue;
    byId.set(i.id, { intervention: i, invocation: askedBy.get(i.id) ?? byId.get(i.id)?.invocation });
  }
  return [...byId.values()];
}

/** Which of a node's invocations to open when the run is opened on that node: the one needing attention first. */
export function focusTarget(invocations: readonly InvocationView[], node: string): string | undefined {
  const mine = invocations.filter((v) => v.node === node);
  for (const status of NODE_STATUS_PRECEDENCE) {
    const hit = mine.find((v) => v.status === status);
    if (hit) return hit.id;
  }
  return undefined;
}

/** Characters of a value shown before "Show all" (outputs can be whole files). */
export const PREVIEW_CHARS = 2000;

/** A value as text for the view: a string as it is, anything else as JSON; cut at `limit` unless `all`. */
export function previewValue(value: unknown, limit = PREVIEW_CHARS, all = false): { text: string; truncated: boolean; length: number } {
  const text = typeof value === 'string' ? value : value === undefined ? '(nothing)' : asJson(value);
  const truncated = !all && text.length > limit;
  return { text: truncated ? text.slice(0, limit) : text, truncated, length: text.length };
}

function asJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The invocations a host stop left stopped in a run that waits for a person (run.notice `stopped`,
 * run-workflow.ts: suspend): running when the host stopped and not started again since. Their last
 * event still says running; they start again once the person answers.
 */
export function stoppedByHostStop(events: readonly RunEvent[]): ReadonlySet<string> {
  let at = -1;
  let ids: readonly string[] = [];
  for (const e of events) if (e.type === 'run.notice' && e.stopped !== undefined && e.seq > at) [at, ids] = [e.seq, e.stopped];
  const stopped = new Set(ids);
  for (const e of events) if (e.type === 'node.invocation' && e.seq > at && e.invocation_id !== undefined) stopped.delete(e.invocation_id);
  return stopped;
}
