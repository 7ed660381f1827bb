import { describe, expect, it } from 'vitest';
import { decideReview, REVIEW_RULE_LABELS, REVIEW_RULES, ReviewDecision, type ReviewRule } from './review-policy';
import { REVIEW_POLICIES, type ReviewPolicyName } from '../contracts/spec';
import { EFFECT_CLASSES, type EffectClass } from '../contracts/tool-effect';

type EffectKey = EffectClass | 'control';
const EFFECT_KEYS: EffectKey[] = ['control', ...EFFECT_CLASSES];

/** A valid student decision under supervision: the rule per policy and effect, written out in full. */
const VALID_STUDENT: Record<ReviewPolicyName, Record<EffectKey, ReviewRule>> = {
  protected_effects: {
    control: 'not_required',
    read: 'not_required',
    reversible_write: 'protected_effect',
    irreversible_write: 'protected_effect',
    external_communication: 'protected_effect',
    unknown: 'protected_effect',
  },
  all: {
    control: 'review_all',
    read: 'review_all',
    reversible_write: 'review_all',
    irreversible_write: 'review_all',
    external_communication: 'review_all',
    unknown: 'review_all',
  },
  none: {
    control: 'review_none',
    read: 'review_none',
    reversible_write: 'review_none',
    irreversible_write: 'review_none',
    external_communication: 'review_none',
    unknown: 'review_none',
  },
};

const REQUIRED: Record<ReviewRule, boolean> = {
  protected_effect: true,
  review_all: true,
  validation_failed: true,
  teacher_proposed: false,
  not_required: false,
  review_none: false,
  supervision_off: false,
  invalid_not_reviewed: false,
};

function expectedRule(c: { proposer: 'student' | 'teacher'; enabled: boolean; valid: boolean; reviewInvalid: boolean; policy: ReviewPolicyName; effect: EffectKey }): ReviewRule {
  if (c.proposer === 'teacher') return 'teacher_proposed';
  if (!c.enabled) return 'supervision_off';
  if (!c.valid) return c.reviewInvalid ? 'validation_failed' : 'invalid_not_reviewed';
  return VALID_STUDENT[c.policy][c.effect];
}

describe('the review policy (every policy × validity × effect × proposer × switch)', () => {
  const rows = REVIEW_POLICIES.flatMap((policy) =>
    EFFECT_KEYS.flatMap((effect) =>
      (['student', 'teacher'] as const).flatMap((proposer) =>
        [true, false].flatMap((enabled) =>
          [true, false].flatMap((valid) => [true, false].map((reviewInvalid) => ({ policy, effect, proposer, enabled, valid, reviewInvalid }))),
        ),
      ),
    ),
  );

  it.each(rows)('$proposer · enabled=$enabled · $policy · valid=$valid · review_invalid=$reviewInvalid · $effect', (row) => {
    const decision = decideReview({
      supervision: { enabled: row.enabled, review: row.policy, review_invalid: row.reviewInvalid },
      validationOk: row.valid,
      effect: row.effect === 'control' ? undefined : row.effect,
      proposer: row.proposer,
    });
    const rule = expectedRule(row);
    expect(decision).toEqual({ required: REQUIRED[rule], rule });
    expect(ReviewDecision.safeParse(decision).success).toBe(true);
  });

  it('covers the whole table', () => {
    expect(rows).toHaveLength(3 * 6 * 2 * 2 * 2 * 2);
  });

  it('a protected effect by the student is never left unreviewed while supervision is on with the default policy', () => {
    for (const effect of EFFECT_CLASSES.filter((e) => e !== 'read')) {
      expect(decideReview({ supervision: { enabled: true, review: 'protected_effects', review_invalid: true }, validationOk: true, effect, proposer: 'student' }).required).toBe(true);
    }
  });

  it('every rule has a label', () => {
    expect(Object.keys(REVIEW_RULE_LABELS).sort()).toEqual([...REVIEW_RULES].sort());
  });
});
