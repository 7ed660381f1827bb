import { Decision } from '@shared/contracts/decision';
import type { HumanAction, HumanAnswer, Intervention } from '@shared/contracts/intervention';
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

/** The intervention's decision as it must run: the raw one (the event carries the masked copy). */
export function rawDecisionOf(record: RoundRecord, kind: 'escalation' | 'confirmation'): Decision | undefined {
  if (kind === 'confirmation') return record.selected?.decision;
  const parsed = record.validation?.ok ? Decision.safeParse(record.candidate.parsed?.raw) : undefined;
  return parsed?.success ? parsed.data : undefined;
}

/** What a person's answer does to the resumed run. */
export type ResumeStep =
  | { kind: 'approve'; preselected: { decision: Decision; intervention_id: string; confirmed: true } }
  | { kind: 'reject'; feedback: string }
  | { kind: 'takeover' }
  | { kind: 'stop' };

export function resumeStep(intervention: Intervention, answer: HumanAnswer): ResumeStep {
  switch (answer.action) {
    case 'approve':
      if (!intervention.decision) throw new Error('there is no decision to approve');
      // The person saw this exact decision: their approval is its review and its confirmation.
      return { kind: 'approve', preselected: { decision: intervention.decision, intervention_id: intervention.id, confirmed: true } };
    case 'reject':
      return { kind: 'reject', feedback: `The user rejected your proposed decision${answer.note ? `: ${answer.note}` : ''}. Propose something else.` };
    case 'takeover':
      return { kind: 'takeover' };
    case 'stop':
      return { kind: 'stop' };
  }
}
