import { Decision } from '@shared/contracts/decision';
import { eventId } from '@shared/contracts/events';
import type { RoundRecord } from '@shared/contracts/round';
import type { RoundFact } from '@shared/scs/contracts';
import { canonicalJson } from '@shared/util/canonical-json';

/** Ids of the events a round emitted (the evidence SCS's monitor can cite). */
export function eventIdsSince(runId: string, from: number, to: number): string[] {
  return Array.from({ length: to - from }, (_, i) => eventId(runId, from + i));
}

/** A round reduced to what SCS's monitor reasons about. */
export function roundFact(record: RoundRecord, eventIds: string[]): RoundFact {
  const decision = record.selected?.decision ?? Decision.safeParse(record.candidate.parsed?.raw).data;
  const tool = decision?.decision_type === 'tool_call' ? decision.tool_name : undefined;
  const failed = record.outcome === 'failed' || (record.outcome === 'blocked' && record.reason !== 'finish_rejected') || record.execution?.is_error === true;
  const what = decision ? (decision.decision_type === 'tool_call' ? decision.tool_name : decision.decision_type) : 'no valid decision';
  const detail = record.execution
    ? record.execution.is_error
      ? `error: ${record.execution.content.slice(0, 160)}`
      : `ok (${record.execution.content.length} chars)`
    : (record.message ?? record.reason ?? '');
  return {
    round: record.round,
    outcome: record.outcome,
    reason: record.reason,
    tool,
    call_key: decision?.decision_type === 'tool_call' ? canonicalJson({ t: decision.tool_name, a: decision.arguments }) : undefined,
    failed,
    summary: `${what} → ${record.outcome}${detail ? `: ${detail}` : ''}`.slice(0, 300),
    event_ids: eventIds,
  };
}
