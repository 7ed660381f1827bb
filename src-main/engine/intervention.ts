import { Decision } from '@shared/contracts/decision';
import type { HumanAction, Intervention } from '@shared/contracts/intervention';
import type { RoundRecord } from '@shared/contracts/round';

/** What a person is asked when a round ends waiting for them, and what they may answer. */
export function interventionFor(record: RoundRecord, kind: 'escalation' | 'confirmation', runId: string, teacherAvailable: boolean): Intervention {
  const id = `${runId}:iv:${record.round}`;
  const requested_at = new Date().toISOString();
  if (kind === 'confirmation') {
    const decision = record.selected?.decision;
    const tool = decision?.decision_type === 'tool_call' ? decision.tool_name : 'this tool';
    return {
      id,
      run_id: runId,
      round: record.round,
      kind,
      decision,
      reason: `${tool} needs your confirmation before it runs.`,
      reason_codes: [],
      options: ['approve', 'reject', 'stop'],
      requested_at,
    };
  }
  // The escalated candidate, when it was a valid decision: the person may approve it as it is.
  const candidate = record.validation?.ok ? Decision.safeParse(record.candidate.parsed?.raw) : undefined;
  const options: HumanAction[] = [
    ...(candidate?.success ? (['approve'] as const) : []),
    'reject',
    ...(teacherAvailable ? (['takeover'] as const) : []),
    'stop',
  ];
  return {
    id,
    run_id: runId,
    round: record.round,
    kind,
    decision: candidate?.success ? candidate.data : undefined,
    reason: record.verdict?.explanation ?? record.message ?? 'The teacher asked for a person to decide.',
    reason_codes: record.verdict?.reason_codes ?? [],
    options,
    requested_at,
  };
}
