import type { Decision } from '@shared/contracts/decision';
import type { RunEventPayload } from '@shared/contracts/events';
import type { ChatMessage } from '@shared/contracts/model';
import type { ModelReply } from '@shared/contracts/model';
import type { RoundRecord } from '@shared/contracts/round';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { parseCandidate } from '@shared/boundary/parse-candidate';
import { validateCandidate } from '@shared/boundary/validation';
import { canonicalJson } from '@shared/util/canonical-json';
import { encodeContext, type PromptSource } from '@shared/learning/learning-context';

type LearningPayload = Extract<RunEventPayload, { type: 'learning.example' }>;
type Models = { student: string; teacher: string };

/**
 * What a round teaches (DESIGN.md §3): a teacher ruling on the student's candidate (review), the
 * teacher's own decision (demonstration), or the student's shadow proposal next to the teacher's
 * (shadow). The context is the prompt the student saw (or would have seen).
 */
export function learningFromRound(record: RoundRecord, context: ChatMessage[], models: Models): LearningPayload | undefined {
  if (record.proposer === 'teacher') {
    if (!record.selected || (record.outcome !== 'executed' && record.outcome !== 'delivered')) return undefined;
    return {
      type: 'learning.example',
      kind: 'demonstration',
      round: record.round,
      context,
      student_candidate: undefined,
      final_decision: record.selected.decision,
      reason_codes: [],
      agreement: false,
      models,
    };
  }
  const verdict = record.verdict;
  if (!verdict) return undefined;
  return {
    type: 'learning.example',
    kind: 'review',
    round: record.round,
    context,
    rule: record.review?.rule,
    student_candidate: record.candidate.parsed?.raw ?? record.candidate.reply?.text,
    verdict,
    final_decision: record.selected?.decision,
    reason_codes: verdict.reason_codes,
    agreement: verdict.verdict === 'accept',
    models,
  };
}

/** Phase 1: the student's shadow candidate against what the teacher decided and did. */
export function learningFromShadow(
  record: RoundRecord,
  shadow: { candidate: unknown; valid: boolean },
  context: ChatMessage[],
  models: Models,
): LearningPayload | undefined {
  const teacherDecision: Decision | undefined = record.selected?.decision;
  if (!teacherDecision) return undefined;
  const agreement = shadow.valid && canonicalJson(withoutConfidence(shadow.candidate)) === canonicalJson(withoutConfidence(teacherDecision));
  return {
    type: 'learning.example',
    kind: 'shadow',
    round: record.round,
    context,
    student_candidate: shadow.candidate,
    final_decision: teacherDecision,
    reason_codes: [],
    agreement,
    models,
  };
}

function withoutConfidence(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const { confidence: _c, ...rest } = value as Record<string, unknown>;
  return rest;
}

/** Every round that teaches something, as learning examples: the reviewed/decided round, and its shadow. */
export function learningFromRoundAndShadow(
  record: RoundRecord,
  context: ChatMessage[],
  shadow: { reply: ModelReply } | { error: string } | undefined,
  snapshot: ToolSnapshot,
  models: Models,
): LearningPayload[] {
  const examples: LearningPayload[] = [];
  const example = learningFromRound(record, context, models);
  if (example) examples.push(example);
  if (shadow && 'reply' in shadow) {
    const parsed = parseCandidate(shadow.reply);
    const comparison = learningFromShadow(record, { candidate: parsed.raw, valid: validateCandidate(parsed, snapshot).result.ok }, context, models);
    if (comparison) examples.push(comparison);
  }
  return examples;
}

/**
 * The learning examples of one agent run as stored: each prompt only as what is new since the
 * previous example's (a reference to the span it repeats), so a trace grows linearly with the
 * rounds. Applied to the event as emitted (masked, bounded): the stored prompts are compared.
 */
export function createPromptEncoder(): (payload: RunEventPayload) => RunEventPayload {
  let previous: PromptSource | undefined;
  return (payload) => {
    if (payload.type !== 'learning.example') return payload;
    const { context_ref: _ref, context_head: _head, ...rest } = payload;
    const encoded = encodeContext(previous, payload.context);
    previous = { round: payload.round, kind: payload.kind, context: payload.context };
    return { ...rest, ...encoded };
  };
}
