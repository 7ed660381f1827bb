import { DECISION_LABELS, Decision } from '@shared/contracts/decision';
import type { ModelReply } from '@shared/contracts/model';
import type { ParsedCandidate } from '@shared/boundary/parse-candidate';

/** What a candidate looks like to a person: a proper decision, or what the model actually said. */
export type CandidateDisplay =
  | { kind: 'decision'; decision: Decision }
  | { kind: 'unparseable'; text: string; error: string }
  | { kind: 'malformed'; raw: unknown; toolCalls: number };

export function describeCandidate(parsed: ParsedCandidate | undefined, reply: ModelReply | undefined): CandidateDisplay | undefined {
  if (!parsed) return reply ? { kind: 'unparseable', text: reply.text, error: 'no candidate could be read' } : undefined;
  if (parsed.parse_error !== undefined) {
    return { kind: 'unparseable', text: typeof parsed.raw === 'string' ? parsed.raw : (reply?.text ?? ''), error: parsed.parse_error };
  }
  const decision = Decision.safeParse(parsed.raw);
  if (decision.success && parsed.tool_call_count <= 1) return { kind: 'decision', decision: decision.data };
  return { kind: 'malformed', raw: parsed.raw, toolCalls: parsed.tool_call_count };
}

/** The one line of text a control decision carries. */
export function controlText(decision: Exclude<Decision, { decision_type: 'tool_call' }>): string {
  switch (decision.decision_type) {
    case 'ask_user':
      return decision.question;
    case 'present_result':
      return decision.content;
    case 'request_confirmation':
      return decision.message;
    case 'reroute':
      return `→ ${decision.target}${decision.reason ? ` (${decision.reason})` : ''}`;
    case 'complete':
      return decision.output;
  }
}

export function decisionTitle(decision: Decision): string {
  return decision.decision_type === 'tool_call' ? decision.tool_name : DECISION_LABELS[decision.decision_type];
}

export function shortJson(value: unknown, max = 2_000): string {
  const text = JSON.stringify(value, null, 2) ?? String(value);
  return text.length > max ? `${text.slice(0, max)}\n…` : text;
}
