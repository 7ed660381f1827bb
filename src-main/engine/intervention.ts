import { Decision } from '@shared/contracts/decision';
import type { HumanAction, HumanAnswer, Intervention, InterventionKind } from '@shared/contracts/intervention';
import type { RoundRecord } from '@shared/contracts/round';

/** What a person is asked when a round ends waiting for them, and what they may answer. */
export function interventionFor(record: RoundRecord, kind: InterventionKind, runId: string, teacherAvailable: boolean): Intervention {
  const id = `${runId}:iv:${record.round}`;
  const requested_at = new Date().toISOString();
  const base = { id, run_id: runId, round: record.round, kind, reason_codes: [], requested_at };
  const selected = record.selected?.decision;
  switch (kind) {
    case 'ask_user':
      return { ...base, decision: selected, reason: selected?.decision_type === 'ask_user' ? selected.question : 'The agent asks you a question.', options: ['reply', 'stop'] };
    case 'request_confirmation':
      return { ...base, decision: selected, reason: selected?.decision_type === 'request_confirmation' ? selected.message : 'The agent asks you to confirm.', options: ['yes', 'no', 'stop'] };
    case 'blocked':
      return {
        ...base,
        decision: validCandidate(record),
        reason: `A decision was blocked (${record.message ?? 'by policy'}). How should the agent go on?`,
        reason_codes: record.verdict?.reason_codes ?? [],
        options: ['reply', 'stop'],
      };
    case 'confirmation':
    case 'escalation':
      break;
  }
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
  const candidate = validCandidate(record);
  const options: HumanAction[] = [
    ...(candidate ? (['approve'] as const) : []),
    'reject',
    ...(teacherAvailable ? (['takeover'] as const) : []),
    'stop',
  ];
  return {
    id,
    run_id: runId,
    round: record.round,
    kind,
    decision: candidate,
    reason: record.verdict?.explanation ?? record.message ?? 'The teacher asked for a person to decide.',
    reason_codes: record.verdict?.reason_codes ?? [],
    options,
    requested_at,
  };
}

/** The round's candidate when it was a valid decision. */
function validCandidate(record: RoundRecord): Decision | undefined {
  const parsed = record.validation?.ok ? Decision.safeParse(record.candidate.parsed?.raw) : undefined;
  return parsed?.success ? parsed.data : undefined;
}

/** The intervention's decision as it must run: the raw one (the event carries the masked copy). */
export function rawDecisionOf(record: RoundRecord, kind: InterventionKind): Decision | undefined {
  switch (kind) {
    case 'confirmation':
    case 'ask_user':
    case 'request_confirmation':
      return record.selected?.decision;
    case 'escalation':
    case 'blocked':
      return validCandidate(record);
  }
}

/** What a person's answer does to the resumed run. */
export type ResumeStep =
  | { kind: 'approve'; preselected: { decision: Decision; intervention_id: string; confirmed: true } }
  | { kind: 'reject'; feedback: string }
  /** The person answered the student: the next round's feedback, and the question's result in the history. */
  | { kind: 'answer'; feedback: string; result?: string }
  | { kind: 'takeover' }
  | { kind: 'stop' };

const withNote = (answer: HumanAnswer) => (answer.note ? ` (${answer.note})` : '');

export function resumeStep(intervention: Intervention, answer: HumanAnswer): ResumeStep {
  switch (answer.action) {
    case 'approve':
      if (!intervention.decision) throw new Error('there is no decision to approve');
      // The person saw this exact decision: their approval is its review and its confirmation.
      return { kind: 'approve', preselected: { decision: intervention.decision, intervention_id: intervention.id, confirmed: true } };
    case 'reject':
      return { kind: 'reject', feedback: `The user rejected your proposed decision${answer.note ? `: ${answer.note}` : ''}. Propose something else.` };
    case 'reply': {
      const text = answer.text ?? '';
      if (intervention.kind === 'blocked') return { kind: 'answer', feedback: `${intervention.reason} The user says: ${text}` };
      return { kind: 'answer', feedback: `The user answered your question: ${text}`, result: `the user replied: ${text}` };
    }
    case 'yes':
    case 'no':
      return {
        kind: 'answer',
        feedback: `The user answered ${answer.action}${withNote(answer)} to: ${intervention.reason}`,
        result: `the user answered ${answer.action}${withNote(answer)}`,
      };
    case 'takeover':
      return { kind: 'takeover' };
    case 'stop':
      return { kind: 'stop' };
  }
}
