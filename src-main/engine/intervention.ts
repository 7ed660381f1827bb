import { candidateFromValue } from '@shared/boundary/parse-candidate';
import { describeIssues, validateCandidate } from '@shared/boundary/validation';
import { Decision } from '@shared/contracts/decision';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { unmaskEdited } from '@shared/util/mask';
import { SpecError } from '../spec/spec-errors';
import type { HumanAction, HumanAnswer, Intervention, InterventionKind } from '@shared/contracts/intervention';
import type { RoundRecord } from '@shared/contracts/round';

/** What a person is asked when a round ends waiting for them, and what they may answer. */
export function interventionFor(record: RoundRecord, kind: InterventionKind, runId: string, teacherAvailable: boolean, roundsLeft?: number): Intervention {
  const id = `${runId}:iv:${record.round}`;
  const requested_at = new Date().toISOString();
  const base = { id, run_id: runId, round: record.round, kind, reason_codes: [], requested_at };
  const selected = record.selected?.decision;
  // Where the proposed call's values came from (issue 31): the candidate's marks, shown on the card.
  const provenance = record.provenance !== undefined && record.provenance.length > 0 ? { provenance: record.provenance } : {};
  switch (kind) {
    case 'ask_user':
      return { ...base, decision: selected, reason: selected?.decision_type === 'ask_user' ? selected.question : 'The agent asks you a question.', options: ['reply', 'stop'] };
    case 'request_confirmation':
      return { ...base, decision: selected, reason: selected?.decision_type === 'request_confirmation' ? selected.message : 'The agent asks you to confirm.', options: ['yes', 'no', 'stop'] };
    case 'blocked':
      return {
        ...base,
        ...(validCandidate(record) ? provenance : {}),
        decision: validCandidate(record),
        reason: `A decision was blocked (${record.message ?? 'by policy'}). How should the agent go on?`,
        reason_codes: record.verdict?.reason_codes ?? [],
        options: ['reply', 'stop'],
      };
    case 'confirmation':
    case 'escalation':
    case 'server_input':
      break;
  }
  // A rejection is tried again in the next round (and a takeover decides the next ones): with no round left, nobody can.
  const again = roundsLeft === undefined || roundsLeft > 0;
  const left = roundsLeft !== undefined ? { rounds_left: roundsLeft } : {};
  if (kind === 'confirmation') {
    const decision = record.selected?.decision;
    const tool = decision?.decision_type === 'tool_call' ? decision.tool_name : 'this tool';
    const sameCall = record.selected?.source === record.proposer;
    return {
      ...(sameCall ? provenance : {}),
      id,
      run_id: runId,
      round: record.round,
      kind,
      decision,
      reason: `${tool} needs your confirmation before it runs.`,
      reason_codes: [],
      options: again ? ['approve', 'reject', 'stop'] : ['approve', 'stop'],
      requested_at,
      ...left,
    };
  }
  // The escalated candidate, when it was a valid decision: the person may approve it as it is.
  const candidate = validCandidate(record);
  const options: HumanAction[] = [
    ...(candidate ? (['approve'] as const) : []),
    ...(again ? (['reject'] as const) : []),
    ...(teacherAvailable && again ? (['takeover'] as const) : []),
    'stop',
  ];
  return {
    ...(candidate ? provenance : {}),
    id,
    run_id: runId,
    round: record.round,
    kind,
    decision: candidate,
    reason: record.verdict?.explanation ?? record.message ?? 'The teacher asked for a person to decide.',
    reason_codes: record.verdict?.reason_codes ?? [],
    options,
    requested_at,
    ...left,
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
    case 'server_input':
      return record.selected?.decision;
    case 'escalation':
    case 'blocked':
      return validCandidate(record);
    case 'pattern_judgment':
      return undefined;
  }
}

/** The decision a person approved: the one they were shown, or it with the arguments they edited. */
export function approvedDecision(intervention: Intervention, answer: HumanAnswer): Decision {
  const decision = intervention.decision;
  if (!decision) throw new SpecError('there is no decision to approve');
  if (answer.arguments === undefined) return decision;
  if (decision.decision_type !== 'tool_call') throw new SpecError(`only a tool call's arguments can be edited (this is ${decision.decision_type})`);
  // Edited from the masked call the person was shown: what they left masked stays what it was.
  return { ...decision, arguments: unmaskEdited(answer.arguments, decision.arguments) };
}

/**
 * Approve with edits: the edited decision passes the same validation a student's candidate passes
 * against the waiting round's tools (I3), or the answer is refused and the run keeps waiting.
 */
export function checkEditedApproval(intervention: Intervention, answer: HumanAnswer, snapshot: ToolSnapshot | undefined): void {
  if (answer.arguments === undefined) return;
  const edited = approvedDecision(intervention, answer);
  if (!snapshot) throw new SpecError('this question cannot take edited arguments: approve the decision as it is, or reject it with a note');
  const validated = validateCandidate(candidateFromValue(edited), snapshot);
  if (!validated.result.ok) throw new SpecError(`your edited arguments do not pass validation: ${describeIssues(validated.result.issues)}`);
}

/** What a person's answer does to the resumed run. */
export type ResumeStep =
  | { kind: 'approve'; preselected: { decision: Decision; intervention_id: string; confirmed: true } }
  | { kind: 'reject'; feedback: string }
  /** The person answered the student: the next round's feedback, and the question's result in the history. */
  | { kind: 'answer'; feedback: string; result?: string }
  | { kind: 'takeover' }
  | { kind: 'stop' }
  /** A tool's question answered (issue 30): the paused call continues, in the next round, with the answers. */
  | { kind: 'continue_call'; preselected: { decision: Decision; intervention_id: string; confirmed: true } };

/** What the agent is told in its next round's prompt when the person rejects its decision (and what the round shows it was told). */
export function rejectionFeedback(intervention: Intervention, note: string | undefined): string {
  const decision = intervention.decision;
  const what = decision?.decision_type === 'tool_call' ? `your call of ${decision.tool_name}` : 'your proposed decision';
  return `The user rejected ${what}; it did not run.${note ? ` Their note: "${note}".` : ''} Propose something else.`;
}

const withNote = (answer: HumanAnswer) => (answer.note ? ` (${answer.note})` : '');

export function resumeStep(intervention: Intervention, answer: HumanAnswer): ResumeStep {
  if (intervention.kind === 'server_input' && answer.action !== 'stop') {
    if (!intervention.decision) throw new Error('there is no paused call to continue');
    return { kind: 'continue_call', preselected: { decision: intervention.decision, intervention_id: intervention.id, confirmed: true } };
  }
  switch (answer.action) {
    case 'approve':
      if (!intervention.decision) throw new Error('there is no decision to approve');
      // The person saw this exact decision (or wrote its arguments): their approval is its review and its confirmation.
      return { kind: 'approve', preselected: { decision: approvedDecision(intervention, answer), intervention_id: intervention.id, confirmed: true } };
    case 'reject':
      return { kind: 'reject', feedback: rejectionFeedback(intervention, answer.note) };
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
    // A workflow tool node's answer (src-main/workflow/tool-node.ts): nobody proposed its call, so an agent never offers it.
    case 'decline':
      throw new SpecError('"decline" answers a workflow step\'s call that no agent proposed: reject tells the agent to try again');
    // A pattern judgment's answers (src-main/workflow/pattern/human-judgment.ts); an agent never offers them.
    case 'escalate':
    case 'expired':
      throw new SpecError(`"${answer.action}" answers a pattern's judgment, not an agent's question`);
    // A person supervising a workflow (src-main/workflow/supervision/person-supervisor.ts); an agent never offers it.
    case 'verdict':
      throw new SpecError('a verdict answers a workflow supervisor escalation, not an agent\'s question');
    // A tool's question (issue 30): handled above.
    case 'cancel':
      throw new SpecError('"cancel" dismisses a tool\'s question, not an agent\'s');
  }
}
