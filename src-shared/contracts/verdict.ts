import { z } from 'zod';

export const VERDICTS = ['accept', 'replace', 'block', 'escalate'] as const;
export const Verdict = z.enum(VERDICTS);
export type Verdict = z.infer<typeof Verdict>;

export const REASON_CODES = [
  'wrong_tool',
  'invalid_arguments',
  'unsafe_effect',
  'policy_violation',
  'off_task',
  'premature_completion',
  'hallucination',
  'other',
] as const;
export const ReasonCode = z.enum(REASON_CODES);
export type ReasonCode = z.infer<typeof ReasonCode>;

/**
 * The teacher's structured operational verdict (seed 000). Strict: unknown keys make it malformed.
 * `replacement` is deliberately `unknown` here: it is validated by exactly the same path as a
 * student candidate (invariant I3), not by a second, possibly looser, schema.
 */
export const TeacherVerdict = z
  .object({
    verdict: Verdict,
    reason_codes: z.array(ReasonCode),
    explanation: z.string().min(1).max(600),
    replacement: z.unknown().optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.verdict === 'replace' && v.replacement === undefined) {
      ctx.addIssue({ code: 'custom', path: ['replacement'], message: 'replace needs a replacement decision' });
    }
    if (v.verdict !== 'replace' && v.replacement !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['replacement'], message: `${v.verdict} must not carry a replacement` });
    }
    if (v.verdict !== 'accept' && v.reason_codes.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['reason_codes'], message: `${v.verdict} needs at least one reason code` });
    }
  });
export type TeacherVerdict = z.infer<typeof TeacherVerdict>;

export const VERDICT_LABELS = {
  accept: 'Accepted',
  replace: 'Replaced',
  block: 'Blocked',
  escalate: 'Escalated',
} satisfies Record<Verdict, string>;
