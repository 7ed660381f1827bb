import type { RunEvent } from '@shared/contracts/events';
import type { ModelUsage } from '@shared/contracts/model';
import { formatMs } from '../view/format';

/** What a run's model calls cost, summed from the events that record a call. */
export interface ModelUsageTotals {
  /** Model calls the events record (proposals, repairs, verdicts, SCS committee and monitor). */
  calls: number;
  /** Calls whose server reported a token count (a replay, and some servers, report none). */
  counted_calls: number;
  /** Calls with a recorded latency (none in a trace written before calls were timed). */
  timed_calls: number;
  input_tokens: number;
  output_tokens: number;
  /** The calls' recorded latencies, added up: time spent waiting for models. */
  latency_ms: number;
}

/** Sums every call of a run (a workflow's agent nodes included). */
export function modelUsageTotals(events: readonly RunEvent[]): ModelUsageTotals {
  const totals = emptyModelUsage();
  for (const e of events) addModelCall(totals, e);
  return totals;
}

/** The same sums per workflow node invocation, in one pass (a node row shows its own). */
export function modelUsageByInvocation(events: readonly RunEvent[]): Map<string, ModelUsageTotals> {
  const byInvocation = new Map<string, ModelUsageTotals>();
  for (const e of events) {
    if (e.invocation_id === undefined) continue;
    const totals = byInvocation.get(e.invocation_id) ?? emptyModelUsage();
    addModelCall(totals, e);
    byInvocation.set(e.invocation_id, totals);
  }
  return byInvocation;
}

/** Whether the event records a model call (what addModelCall counts). */
export function isModelCall(e: RunEvent): boolean {
  return callOf(e) !== undefined;
}

export function emptyModelUsage(): ModelUsageTotals {
  return { calls: 0, counted_calls: 0, timed_calls: 0, input_tokens: 0, output_tokens: 0, latency_ms: 0 };
}

/**
 * Each call is counted from the event that records it; round.completed repeats the replies and is not read.
 * Also adds to running totals (a trace tree's spans keep theirs as events arrive).
 */
function callOf(e: RunEvent) {
  return e.type === 'candidate.proposed' ? e.reply : e.type === 'verdict.received' ? e.attempt.reply : e.type === 'scs.transcript' ? e : undefined;
}

export function addModelCall(totals: ModelUsageTotals, e: RunEvent): void {
  const call = callOf(e);
  if (!call) return;
  const usage: ModelUsage | undefined = call.usage;
  totals.calls += 1;
  if (usage) totals.counted_calls += 1;
  if (call.latency_ms !== undefined) totals.timed_calls += 1;
  totals.input_tokens += usage?.input_tokens ?? 0;
  totals.output_tokens += usage?.output_tokens ?? 0;
  totals.latency_ms += call.latency_ms ?? 0;
}

const count = new Intl.NumberFormat('en-US');

/**
 * "1,850 in / 110 out tokens · 5.0 s model time"; undefined when no call recorded either (no call
 * yet, or a trace from before calls were measured): an unknown is not shown as zero.
 */
export function describeModelUsage(totals: ModelUsageTotals): string | undefined {
  const parts: string[] = [];
  if (totals.counted_calls > 0) {
    const partial = totals.counted_calls < totals.calls ? ` (${totals.counted_calls} of ${totals.calls} calls counted)` : '';
    parts.push(`${count.format(totals.input_tokens)} in / ${count.format(totals.output_tokens)} out tokens${partial}`);
  }
  if (totals.timed_calls > 0) parts.push(`${formatMs(totals.latency_ms)} model time`);
  return parts.length > 0 ? parts.join(' · ') : undefined;
}
