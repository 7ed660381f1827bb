import { z } from 'zod';
import type { Decision } from '../contracts/decision';
import type { EffectClass } from '../contracts/tool-effect';
import { isProtectedEffect } from '../contracts/tool-effect';
import type { SupervisionSpec } from '../contracts/spec';
import { provenanceReason, type ArgumentProvenance } from '../boundary/provenance';

/** Which rule sent a decision to the teacher, or why none did. The trace records it every round. */
export const REVIEW_RULES = [
  'protected_effect',
  'untrusted_provenance',
  'review_all',
  'validation_failed',
  'listed_tool',
  'finish',
  'after_refusal',
  'low_confidence',
  'sampled',
  'teacher_proposed',
  'human_decided',
  'not_required',
  'supervision_off',
  'invalid_not_reviewed',
] as const;
export const ReviewRule = z.enum(REVIEW_RULES);
export type ReviewRule = z.infer<typeof ReviewRule>;

export const ReviewDecision = z
  .object({
    required: z.boolean(),
    rule: ReviewRule,
    /** The rule's particulars in words: for `untrusted_provenance`, which argument carries which server's, tool's and round's value. */
    detail: z.string().max(500).optional(),
  })
  .strict();
export type ReviewDecision = z.infer<typeof ReviewDecision>;

export const REVIEW_RULE_LABELS = {
  protected_effect: 'protected effect: always reviewed',
  untrusted_provenance: 'an argument carries a value from an untrusted tool result',
  review_all: 'fully gated: every decision reviewed',
  validation_failed: 'validation failed: teacher may repair',
  listed_tool: 'this tool is always reviewed',
  finish: 'finish: completions are reviewed',
  after_refusal: 'final answer after a blocked or rejected decision: checked against what ran',
  low_confidence: 'low self-reported confidence',
  sampled: 'sampled for audit',
  teacher_proposed: 'proposed by the teacher itself',
  human_decided: 'approved by you',
  not_required: 'no rule fired',
  supervision_off: 'supervision off',
  invalid_not_reviewed: 'invalid and not sent for review',
} satisfies Record<ReviewRule, string>;

export interface ReviewContext {
  supervision: Pick<SupervisionSpec, 'enabled' | 'phase' | 'rules'>;
  validationOk: boolean;
  /** The validated decision (absent when validation failed). */
  decision?: Decision;
  /** Effect class of the validated tool call; undefined for control responses. */
  effect?: EffectClass;
  proposer: 'student' | 'teacher';
  /** The seeded sampler drew this round for audit (see sampler.ts). */
  sampled: boolean;
  /** A final answer given after a decision was blocked or rejected (boundary/final-answer-check.ts). */
  afterRefusal?: boolean;
  /** The tool call's argument values that came from untrusted tool results (boundary/provenance.ts). */
  untrusted?: readonly ArgumentProvenance[];
}

/** Whether the rule `untrusted_provenance` is on: it is unless the profile turns it off (absent = on). */
export function provenanceRuleOn(rules: Pick<SupervisionSpec['rules'], 'untrusted_provenance'>): boolean {
  return rules.untrusted_provenance !== false;
}

/**
 * The review policy: a pure function of the round's facts (DESIGN.md §3 step 3). The first rule
 * that fires is the one recorded. Protected effects are reviewed in every phase where the student
 * proposes (I4); phase 2 reviews everything; phase 3 adds the configured rules; phase 4 keeps only
 * what I4 demands, validation failures, untrusted provenance (when on) and sampled audits.
 */
export function decideReview(ctx: ReviewContext): ReviewDecision {
  const { supervision, decision } = ctx;
  if (ctx.proposer === 'teacher') return { required: false, rule: 'teacher_proposed' };
  if (!supervision.enabled) return { required: false, rule: 'supervision_off' };
  if (!ctx.validationOk) {
    return supervision.rules.validation_failed
      ? { required: true, rule: 'validation_failed' }
      : { required: false, rule: 'invalid_not_reviewed' };
  }
  if (supervision.phase <= 2) return { required: true, rule: 'review_all' };
  // In phases 3 and 4: a tool call carrying text an untrusted server returned may be an injected
  // instruction at work, whatever its effect; the reason names the argument and its source.
  const untrusted = ctx.untrusted ?? [];
  if (decision?.decision_type === 'tool_call' && untrusted.length > 0 && provenanceRuleOn(supervision.rules)) {
    return { required: true, rule: 'untrusted_provenance', detail: provenanceReason(untrusted) };
  }
  // In every phase: a final answer may claim what was refused never happened.
  if (ctx.afterRefusal === true) return { required: true, rule: 'after_refusal' };
  if (ctx.effect !== undefined && isProtectedEffect(ctx.effect)) return { required: true, rule: 'protected_effect' };
  if (supervision.phase === 3 && decision) {
    const { rules } = supervision;
    if (decision.decision_type === 'tool_call' && rules.tools.includes(decision.tool_name)) return { required: true, rule: 'listed_tool' };
    if (decision.decision_type === 'complete' && rules.complete) return { required: true, rule: 'finish' };
    if (rules.min_confidence !== undefined && (decision.confidence ?? 0) < rules.min_confidence) {
      return { required: true, rule: 'low_confidence' };
    }
  }
  if (ctx.sampled) return { required: true, rule: 'sampled' };
  return { required: false, rule: 'not_required' };
}
