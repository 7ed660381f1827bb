import { z } from 'zod';
import type { EffectClass } from '../contracts/tool-effect';
import { isProtectedEffect } from '../contracts/tool-effect';
import type { SupervisionSpec } from '../contracts/spec';

/** Which rule sent a decision to the teacher, or why none did. The trace records it every round. */
export const REVIEW_RULES = [
  'protected_effect',
  'review_all',
  'validation_failed',
  'teacher_proposed',
  'not_required',
  'review_none',
  'supervision_off',
  'invalid_not_reviewed',
] as const;
export const ReviewRule = z.enum(REVIEW_RULES);
export type ReviewRule = z.infer<typeof ReviewRule>;

export const ReviewDecision = z.object({ required: z.boolean(), rule: ReviewRule }).strict();
export type ReviewDecision = z.infer<typeof ReviewDecision>;

export const REVIEW_RULE_LABELS = {
  protected_effect: 'protected effect: always reviewed',
  review_all: 'fully gated: every decision reviewed',
  validation_failed: 'validation failed: teacher may repair',
  teacher_proposed: 'proposed by the teacher itself',
  not_required: 'no rule fired',
  review_none: 'review policy: none',
  supervision_off: 'supervision off',
  invalid_not_reviewed: 'invalid and not sent for review',
} satisfies Record<ReviewRule, string>;

export interface ReviewContext {
  supervision: Pick<SupervisionSpec, 'enabled' | 'review' | 'review_invalid'>;
  validationOk: boolean;
  /** Effect class of the validated tool call; undefined for control responses. */
  effect?: EffectClass;
  proposer: 'student' | 'teacher';
}

/** The review policy: a pure function of the round's facts (DESIGN.md §3 step 3). */
export function decideReview(ctx: ReviewContext): ReviewDecision {
  if (ctx.proposer === 'teacher') return { required: false, rule: 'teacher_proposed' };
  if (!ctx.supervision.enabled) return { required: false, rule: 'supervision_off' };
  if (!ctx.validationOk) {
    return ctx.supervision.review_invalid
      ? { required: true, rule: 'validation_failed' }
      : { required: false, rule: 'invalid_not_reviewed' };
  }
  switch (ctx.supervision.review) {
    case 'all':
      return { required: true, rule: 'review_all' };
    case 'none':
      return { required: false, rule: 'review_none' };
    case 'protected_effects':
      return ctx.effect !== undefined && isProtectedEffect(ctx.effect)
        ? { required: true, rule: 'protected_effect' }
        : { required: false, rule: 'not_required' };
  }
}
