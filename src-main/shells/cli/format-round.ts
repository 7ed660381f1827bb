import type { Decision } from '@shared/contracts/decision';
import type { RunEventOf } from '@shared/contracts/events';
import type { RoundRecord } from '@shared/contracts/round';
import { roundNumber } from '@shared/contracts/round-number';
import { REVIEW_RULE_LABELS } from '@shared/policy/review-policy';
import { formatMs } from '../../providers/http-call';

const MAX_ARGS = 90;

export function formatDecision(decision: Decision): string {
  switch (decision.decision_type) {
    case 'tool_call': {
      const args = JSON.stringify(decision.arguments);
      return `${decision.tool_name} ${args.length > MAX_ARGS ? `${args.slice(0, MAX_ARGS)}…` : args}`;
    }
    case 'complete':
      return 'complete';
    case 'present_result':
      return 'present_result';
    case 'ask_user':
      return `ask_user "${decision.question}"`;
    case 'request_confirmation':
      return `request_confirmation "${decision.message}"`;
    case 'reroute':
      return `reroute → ${decision.target}`;
  }
}

/** One compact line (two when the teacher changed something) per round for the terminal. */
export function formatRound(record: RoundRecord, dryRun = false): string {
  const head = `  round ${roundNumber(record.round)}`;
  const candidate = record.validation?.ok === false
    ? `${record.proposer} → invalid candidate (${record.validation.issues.map((i) => i.code).join(', ')})`
    : describeCandidate(record);
  const review = record.review
    ? record.review.required
      ? `reviewed: ${REVIEW_RULE_LABELS[record.review.rule]}${record.review.detail !== undefined ? ` (${record.review.detail})` : ''}`
      : `not reviewed: ${REVIEW_RULE_LABELS[record.review.rule]}`
    : '';
  const lines = [`${head}  ${candidate}${review ? `  · ${review}` : ''}`];
  if (record.repairs.length > 0) {
    const codes = record.repairs.map((r) => r.validation.issues.map((i) => i.code).join('+')).join(', ');
    lines.push(`           repaired by the ${record.proposer} ${record.repairs.length}× (was: ${codes})`);
  }
  for (const attempt of record.verdicts) {
    if (attempt.verdict && attempt.usable) {
      const v = attempt.verdict;
      const codes = v.reason_codes.length ? ` [${v.reason_codes.join(', ')}]` : '';
      lines.push(`           teacher ${v.verdict}${codes}: ${v.explanation}`);
    } else {
      lines.push(`           teacher verdict ${attempt.attempt} unusable: ${attempt.problem ?? 'unknown problem'}`);
    }
  }
  const selected = record.selected && record.selected.source === 'teacher' && record.proposer === 'student'
    ? ` ${formatDecision(record.selected.decision)}`
    : '';
  const detail = record.outcome === 'executed' && record.execution?.is_error ? ' (tool reported an error)' : '';
  const why = record.outcome === 'executed' || record.outcome === 'delivered' ? '' : `: ${record.message ?? record.reason ?? ''}`;
  // A dry run's call was authorized and not run: said as the app's round says it, never "executed".
  const givenAgain = record.authorization?.ok === true && record.authorization.recorded_result === true;
  const outcome = dryRun && record.outcome === 'executed'
    ? 'would have executed (dry run: not run)'
    : givenAgain && record.outcome === 'executed'
      ? 'given the result it got before the stop (made once, not called again)'
      : record.outcome;
  lines.push(`           →${selected} ${outcome}${detail}${why}`);
  return lines.join('\n');
}

/** A model call is made again after a transient failure: one line, so a slow run says why it waits. */
export function formatModelRetry(event: RunEventOf<'model.retry'>): string {
  return `  ${event.role} model retry ${event.attempt} in ${formatMs(event.delay_ms)}: ${event.reason}`;
}

function describeCandidate(record: RoundRecord): string {
  const raw = record.candidate.parsed?.raw;
  const decision = record.selected?.source === record.proposer ? record.selected.decision : undefined;
  if (decision) return `${record.proposer} → ${formatDecision(decision)}`;
  if (raw && typeof raw === 'object' && 'decision_type' in raw) {
    const d = raw as { decision_type: string; tool_name?: string; arguments?: unknown };
    const args = d.arguments === undefined ? '' : ` ${JSON.stringify(d.arguments).slice(0, MAX_ARGS)}`;
    return `${record.proposer} → ${d.tool_name ?? d.decision_type}${args}`;
  }
  return `${record.proposer} → ${record.candidate.error ?? 'no decision'}`;
}
