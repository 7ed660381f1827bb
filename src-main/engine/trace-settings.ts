import type { RunEventPayload } from '@shared/contracts/events';
import type { TraceSettings } from '@shared/contracts/profiles';

/** A trace profile that keeps no tool results: the content is replaced by its size. */
export function applyTraceSettings(payload: RunEventPayload, trace: TraceSettings | undefined): RunEventPayload {
  if (trace?.include_tool_results !== false) return payload;
  const strip = <T extends { content: string }>(e: T): T => ({ ...e, content: `(not kept by the trace profile: ${e.content.length} characters)` });
  if (payload.type === 'tool.executed') return { ...payload, execution: strip(payload.execution) };
  if (payload.type === 'round.completed' && payload.record.execution) {
    return { ...payload, record: { ...payload.record, execution: strip(payload.record.execution) } };
  }
  return payload;
}

/** The trace profile's retention as run.started records it (nothing when the profile keeps runs forever). */
export function traceRetention(trace: TraceSettings | undefined): { retention?: { days?: number; runs?: number } } {
  const days = trace?.retention_days;
  const runs = trace?.retention_runs;
  if (days === undefined && runs === undefined) return {};
  return { retention: { ...(days !== undefined ? { days } : {}), ...(runs !== undefined ? { runs } : {}) } };
}
