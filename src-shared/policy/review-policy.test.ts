import { describe, expect, it } from 'vitest';
import { decideReview, REVIEW_RULE_LABELS, REVIEW_RULES, ReviewDecision, type ReviewRule } from './review-policy';
import { LIFECYCLE_PHASES, type LifecyclePhase, type ReviewRules } from '../contracts/spec';
import { EFFECT_CLASSES, EFFECT_PROTECTED, type EffectClass } from '../contracts/tool-effect';
import type { Decision } from '../contracts/decision';

type Kind = EffectClass | 'control' | 'complete' | 'listed';

const DEFAULT_RULES: ReviewRules = { validation_failed: true, sample_rate: 0, sample_seed: 0, complete: false, tools: [] };

function decisionFor(kind: Kind, confidence?: number): { decision: Decision; effect?: EffectClass } {
  switch (kind) {
    case 'control':
      return { decision: { decision_type: 'present_result', content: 'x', confidence } };
    case 'complete':
      return { decision: { decision_type: 'complete', output: 'done', confidence } };
    case 'listed':
      return { decision: { decision_type: 'tool_call', tool_name: 'send_invoice', arguments: {}, confidence }, effect: 'read' };
    default:
      return { decision: { decision_type: 'tool_call', tool_name: `t_${kind}`, arguments: {}, confidence }, effect: kind };
  }
}

interface Case {
  phase: LifecyclePhase;
  kind: Kind;
  proposer: 'student' | 'teacher';
  enabled: boolean;
  valid: boolean;
  rules: ReviewRules;
  sampled: boolean;
  confidence?: number;
  /** A final answer after a refused decision (the boundary decides which answers are final). */
  afterRefusal: boolean;
}

/** The policy restated independently, rule by rule, in the documented order. */
function expected(c: Case): ReviewRule {
  if (c.proposer === 'teacher') return 'teacher_proposed';
  if (!c.enabled) return 'supervision_off';
  if (!c.valid) return c.rules.validation_failed ? 'validation_failed' : 'invalid_not_reviewed';
  if (c.phase <= 2) return 'review_all';
  if (c.afterRefusal) return 'after_refusal';
  const { effect } = decisionFor(c.kind);
  if (effect && EFFECT_PROTECTED[effect]) return 'protected_effect';
  if (c.phase === 3) {
    if (c.kind === 'listed' && c.rules.tools.includes('send_invoice')) return 'listed_tool';
    if (c.kind === 'complete' && c.rules.complete) return 'finish';
    if (c.rules.min_confidence !== undefined && (c.confidence ?? 0) < c.rules.min_confidence) return 'low_confidence';
  }
  if (c.sampled) return 'sampled';
  return 'not_required';
}

const REQUIRED = {
  protected_effect: true,
  untrusted_provenance: true,
  review_all: true,
  validation_failed: true,
  listed_tool: true,
  finish: true,
  after_refusal: true,
  low_confidence: true,
  sampled: true,
  teacher_proposed: false,
  human_decided: false,
  not_required: false,
  supervision_off: false,
  invalid_not_reviewed: false,
} satisfies Record<ReviewRule, boolean>;

const RULE_SETS: ReviewRules[] = [
  DEFAULT_RULES,
  { ...DEFAULT_RULES, validation_failed: false },
  { ...DEFAULT_RULES, complete: true, tools: ['send_invoice'] },
  { ...DEFAULT_RULES, min_confidence: 0.7 },
];
const KINDS: Kind[] = ['control', 'complete', 'listed', ...EFFECT_CLASSES];

describe('the review policy (every phase × decision × proposer × switch × rule set × sampling)', () => {
  const rows: Case[] = LIFECYCLE_PHASES.flatMap((phase) =>
    KINDS.flatMap((kind) =>
      (['student', 'teacher'] as const).flatMap((proposer) =>
        [true, false].flatMap((enabled) =>
          [true, false].flatMap((valid) =>
            RULE_SETS.flatMap((rules) =>
              [true, false].flatMap((sampled) =>
                [undefined, 0.5, 0.9].flatMap((confidence) => [false, true].map((afterRefusal) => ({ phase, kind, proposer, enabled, valid, rules, sampled, confidence, afterRefusal }))),
              ),
            ),
          ),
        ),
      ),
    ),
  );

  it(`matches the documented order on all ${rows.length} combinations`, () => {
    for (const row of rows) {
      const { decision, effect } = decisionFor(row.kind, row.confidence);
      const got = decideReview({
        supervision: { enabled: row.enabled, phase: row.phase, rules: row.rules },
        validationOk: row.valid,
        decision: row.valid ? decision : undefined,
        effect: row.valid ? effect : undefined,
        proposer: row.proposer,
        sampled: row.sampled,
        afterRefusal: row.afterRefusal,
      });
      const rule = expected(row);
      expect(got, JSON.stringify(row)).toEqual({ required: REQUIRED[rule], rule });
      expect(ReviewDecision.safeParse(got).success).toBe(true);
    }
  });

  it('a protected effect proposed by the student is reviewed in every supervised phase', () => {
    for (const phase of [2, 3, 4] as const) {
      for (const effect of EFFECT_CLASSES.filter((e) => EFFECT_PROTECTED[e])) {
        const d = decideReview({ supervision: { enabled: true, phase, rules: DEFAULT_RULES }, validationOk: true, decision: decisionFor(effect).decision, effect, proposer: 'student', sampled: false });
        expect(d.required, `${phase} ${effect}`).toBe(true);
      }
    }
  });

  it('phase 4 reviews a read only when it is sampled', () => {
    const base = { supervision: { enabled: true, phase: 4 as const, rules: { ...DEFAULT_RULES, complete: true, min_confidence: 0.9 } }, validationOk: true, decision: decisionFor('read').decision, effect: 'read' as const, proposer: 'student' as const };
    expect(decideReview({ ...base, sampled: false })).toEqual({ required: false, rule: 'not_required' });
    expect(decideReview({ ...base, sampled: true })).toEqual({ required: true, rule: 'sampled' });
  });

  it('every rule has a label', () => {
    for (const rule of REVIEW_RULES) expect(REVIEW_RULE_LABELS[rule].length).toBeGreaterThan(0);
  });
});
