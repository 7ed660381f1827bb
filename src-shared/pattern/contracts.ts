import { z } from 'zod';
import { checkModelUrl } from '../contracts/model-url';
import { compileExpression, MAX_EXPRESSION_CHARS } from './verifier-expression';

/**
 * Pattern nodes (issue 12, seed 002): a SUPERVISOR, DEBATE or PIPELINE of member agents driven by
 * the loop route → activate → dispatch → aggregate → judge → terminate, where the judgment is a
 * first-class phase. A judge answers with a structured verdict (a schema-bound tool call or a form),
 * never free text, and every verdict is verified before the loop acts on it.
 */

export const PATTERN_TYPES = ['SUPERVISOR', 'DEBATE', 'PIPELINE'] as const;
export const PatternType = z.enum(PATTERN_TYPES);
export type PatternType = z.infer<typeof PatternType>;

const Id = z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, 'lowercase letters, digits, _ . - (at most 64)');

/** A member agent, by reference: the agent definition it runs, its role here and its instructions. */
export const PatternMember = z
  .object({
    id: Id,
    role: z.string().min(1).max(120),
    instructions: z.string().max(8000).default(''),
  })
  .strict();
export type PatternMember = z.infer<typeof PatternMember>;

export const EXHAUSTION_POLICIES = ['fail', 'escalate', 'best_unapproved'] as const;
export const ExhaustionPolicy = z.enum(EXHAUSTION_POLICIES);
export type ExhaustionPolicy = z.infer<typeof ExhaustionPolicy>;

/** Where the judgment sits: after the whole pattern, or after each PIPELINE step. */
export const JUDGMENT_PLACEMENTS = ['after_pattern', 'after_each_step'] as const;
export const JudgmentPlacement = z.enum(JUDGMENT_PLACEMENTS);
export type JudgmentPlacement = z.infer<typeof JudgmentPlacement>;

/**
 * default: the pattern's own review is the judgment (the judging member does not dispatch).
 * post_step: the pattern reviews as usual (its reviewer dispatches like any member) and a separate
 * judgment follows: two levels.
 */
export const JUDGMENT_MODES = ['default', 'post_step'] as const;
export const JudgmentMode = z.enum(JUDGMENT_MODES);
export type JudgmentMode = z.infer<typeof JudgmentMode>;

export const JudgmentTrigger = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('always') }).strict(),
  /** Judge only when the aggregate's confidence is below the threshold (unknown confidence is judged). */
  z.object({ kind: z.literal('below_confidence'), threshold: z.number().min(0).max(1) }).strict(),
  /** Judge iterations n, 2n, … and always the last one, so no output leaves unjudged by this trigger. */
  z.object({ kind: z.literal('every_n'), n: z.number().int().min(1).max(50) }).strict(),
]);
export type JudgmentTrigger = z.infer<typeof JudgmentTrigger>;

export const LlmCaller = z
  .object({
    kind: z.literal('llm'),
    /** A model profile; the privacy policy applies to what it is sent. */
    profile: z.string().min(1).max(120),
    /** The member whose role and instructions the judge plays (SUPERVISOR's supervisor, DEBATE's judge). */
    as_member: Id.optional(),
  })
  .strict();
export type LlmCaller = z.infer<typeof LlmCaller>;

/** What happens when a person does not answer before the expiry. */
export const HumanFallback = z.discriminatedUnion('kind', [z.object({ kind: z.literal('escalate') }).strict(), LlmCaller]);
export type HumanFallback = z.infer<typeof HumanFallback>;

export const HumanCaller = z
  .object({
    kind: z.literal('human'),
    /** Seconds until the host's persisted timer reports the judgment expired; none waits indefinitely. */
    expiry_seconds: z.number().int().min(60).max(30 * 24 * 3600).optional(),
    fallback: HumanFallback.default({ kind: 'escalate' }),
  })
  .strict();
export type HumanCaller = z.infer<typeof HumanCaller>;

/**
 * A remote agent speaking the Agent2Agent protocol (issue 29): its agent card is read at
 * `url`/.well-known/agent-card.json, and its host is under the privacy policy like a model's.
 */
export const A2aCaller = z
  .object({
    kind: z.literal('a2a'),
    url: z
      .string()
      .min(1)
      .max(2000)
      .superRefine((url, ctx) => {
        const check = checkModelUrl(url);
        if (!check.ok) ctx.addIssue({ code: 'custom', message: `the agent's address ${check.problem}` });
      }),
    /** A label for the judge in the run view; its agent card's name is recorded beside it. */
    name: z.string().min(1).max(120).optional(),
  })
  .strict();
export type A2aCaller = z.infer<typeof A2aCaller>;

/** Domain judgment as a pluggable verifier: the output must satisfy a JSON Schema (its text read as JSON). */
export const JsonSchemaCaller = z
  .object({ kind: z.literal('json_schema'), name: z.string().min(1).max(120).optional(), schema: z.record(z.string(), z.unknown()) })
  .strict();
export type JsonSchemaCaller = z.infer<typeof JsonSchemaCaller>;

/** Domain judgment as a deterministic expression over the candidate (verifier-expression.ts). */
export const ExpressionCaller = z
  .object({
    kind: z.literal('expression'),
    name: z.string().min(1).max(120).optional(),
    expression: z
      .string()
      .max(MAX_EXPRESSION_CHARS)
      .superRefine((source, ctx) => {
        const compiled = compileExpression(source);
        if (!compiled.ok) ctx.addIssue({ code: 'custom', message: compiled.problem });
      }),
  })
  .strict();
export type ExpressionCaller = z.infer<typeof ExpressionCaller>;

export type VerifierCaller = JsonSchemaCaller | ExpressionCaller;

export const JudgmentCaller = z.discriminatedUnion('kind', [LlmCaller, HumanCaller, A2aCaller, JsonSchemaCaller, ExpressionCaller]);
export type JudgmentCaller = z.infer<typeof JudgmentCaller>;

export const AGREEMENT_RULES = ['all', 'any', 'majority'] as const;
export const AgreementRule = z.enum(AGREEMENT_RULES);
export type AgreementRule = z.infer<typeof AgreementRule>;

/** The evidence a verdict must cite, beyond its schema: member outputs of the iteration it judges. */
export const VerifierSettings = z
  .object({
    min_citations: z.number().int().min(0).max(20).default(1),
    /** Members at least one of whose outputs this iteration every approval or rejection must cite. */
    must_cite: z.array(Id).max(20).default([]),
  })
  .strict();
export type VerifierSettings = z.infer<typeof VerifierSettings>;

export const VERIFICATION_FAILURE_POLICIES = ['retry_then_escalate', 'retry_then_fail'] as const;
export const VerificationFailurePolicy = z.enum(VERIFICATION_FAILURE_POLICIES);
export type VerificationFailurePolicy = z.infer<typeof VerificationFailurePolicy>;

export const JudgmentSettings = z
  .object({
    /** Unset: the pattern's default (presets.ts). */
    placement: JudgmentPlacement.optional(),
    mode: JudgmentMode.default('default'),
    trigger: JudgmentTrigger.default({ kind: 'always' }),
    callers: z.array(JudgmentCaller).min(1).max(7),
    agreement: AgreementRule.default('all'),
    verifier: VerifierSettings.default({ min_citations: 1, must_cite: [] }),
    on_verification_failure: VerificationFailurePolicy.default('retry_then_escalate'),
  })
  .strict();
export type JudgmentSettings = z.infer<typeof JudgmentSettings>;
export type JudgmentSettingsInput = z.input<typeof JudgmentSettings>;

/** Members who judge rather than dispatch: in default mode, the pattern's own reviewer is the judgment. */
export function judgingMembers(judgment: Pick<JudgmentSettings, 'mode' | 'callers'>): Set<string> {
  if (judgment.mode === 'post_step') return new Set();
  return new Set(judgment.callers.flatMap((c) => (c.kind === 'llm' && c.as_member !== undefined ? [c.as_member] : [])));
}

export const PatternSettings = z
  .object({
    type: PatternType,
    members: z.array(PatternMember).min(1).max(12),
    /** Dispatches per judged unit (the pattern, or each PIPELINE step). */
    max_iterations: z.number().int().min(1).max(20).default(3),
    on_exhaustion: ExhaustionPolicy.default('fail'),
    judgment: JudgmentSettings,
  })
  .strict()
  .superRefine((s, ctx) => {
    const ids = new Set(s.members.map((m) => m.id));
    if (ids.size !== s.members.length) ctx.addIssue({ code: 'custom', path: ['members'], message: 'member ids must be unique' });
    for (const [i, id] of s.judgment.verifier.must_cite.entries()) {
      if (!ids.has(id)) ctx.addIssue({ code: 'custom', path: ['judgment', 'verifier', 'must_cite', i], message: `no member "${id}"` });
    }
    const judges = judgingMembers(s.judgment);
    if (s.members.every((m) => judges.has(m.id))) ctx.addIssue({ code: 'custom', path: ['members'], message: 'every member judges: at least one must do the work' });
    if (s.judgment.placement === 'after_each_step' && s.type !== 'PIPELINE') {
      ctx.addIssue({ code: 'custom', path: ['judgment', 'placement'], message: 'only a PIPELINE has steps to judge one by one' });
    }
    for (const [i, c] of s.judgment.callers.entries()) {
      const member = c.kind === 'llm' ? c.as_member : c.kind === 'human' && c.fallback.kind === 'llm' ? c.fallback.as_member : undefined;
      if (member !== undefined && !ids.has(member)) ctx.addIssue({ code: 'custom', path: ['judgment', 'callers', i], message: `no member "${member}"` });
    }
  });
export type PatternSettings = z.infer<typeof PatternSettings>;
export type PatternSettingsInput = z.input<typeof PatternSettings>;

/** One member's output in one iteration; `id` is what a verdict cites. */
export const MemberOutput = z.object({ id: z.string().min(1).max(200), member_id: Id, text: z.string().max(200_000) }).strict();
export type MemberOutput = z.infer<typeof MemberOutput>;

/** What the host's dispatch returns: every member output and the pattern's aggregate of them. */
export const DispatchResult = z
  .object({
    outputs: z.array(MemberOutput).min(1).max(50),
    /** The pattern's own result (the supervisor's synthesis, the debate's position, the step's output). */
    output: z.string().max(200_000),
    confidence: z.number().min(0).max(1).optional(),
  })
  .strict();
export type DispatchResult = z.infer<typeof DispatchResult>;

/** A judge's structured answer. The approved result is the judged output itself, never the judge's text. */
export const JudgeVerdict = z.discriminatedUnion('verdict', [
  z.object({ verdict: z.literal('approved'), evidence: z.array(z.string().min(1).max(200)).max(50), note: z.string().max(4000).optional() }).strict(),
  z.object({ verdict: z.literal('rejected'), feedback: z.string().min(1).max(8000), evidence: z.array(z.string().min(1).max(200)).max(50) }).strict(),
  z.object({ verdict: z.literal('escalated'), reason: z.string().min(1).max(4000) }).strict(),
]);
export type JudgeVerdict = z.infer<typeof JudgeVerdict>;
export type VerdictKind = JudgeVerdict['verdict'];

export const VERIFIER_KINDS = ['json_schema', 'expression'] as const;

/**
 * Who gave a judgment (the audit, issue 29): a person, a model (its profile and model), a remote
 * A2A agent (its address, and its agent card's name and version as read), a verifier (its kind
 * and name), or the driver itself.
 */
export const CallerIdentity = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('human'), who: z.string().min(1).max(200).optional() }).strict(),
  z.object({ kind: z.literal('llm'), profile: z.string().min(1).max(120), model: z.string().min(1).max(300).optional() }).strict(),
  z
    .object({
      kind: z.literal('a2a'),
      url: z.string().min(1).max(2000),
      name: z.string().min(1).max(120).optional(),
      agent: z.object({ name: z.string().max(300), version: z.string().max(100) }).strict().optional(),
    })
    .strict(),
  z.object({ kind: z.literal('verifier'), verifier: z.enum(VERIFIER_KINDS), name: z.string().min(1).max(120) }).strict(),
  /** The driver itself: an expiry with no fallback, a verification that ran out of retries. */
  z.object({ kind: z.literal('system') }).strict(),
]);
export type CallerIdentity = z.infer<typeof CallerIdentity>;

/** A verified verdict with the caller who gave it (issue 12: approved / rejected / escalated). */
export const JudgmentVerdict = z.discriminatedUnion('verdict', [
  z.object({ verdict: z.literal('approved'), result: z.string(), evidence: z.array(z.string()), caller: CallerIdentity }).strict(),
  z.object({ verdict: z.literal('rejected'), feedback: z.string().min(1), evidence: z.array(z.string()), caller: CallerIdentity }).strict(),
  z.object({ verdict: z.literal('escalated'), reason: z.string().min(1), caller: CallerIdentity }).strict(),
]);
export type JudgmentVerdict = z.infer<typeof JudgmentVerdict>;

export const Verification = z.discriminatedUnion('ok', [z.object({ ok: z.literal(true) }).strict(), z.object({ ok: z.literal(false), problem: z.string().min(1) }).strict()]);
export type Verification = z.infer<typeof Verification>;

/** Every judgment call, usable or not: what the trace, the run view and learning data read. */
export const JudgmentRecord = z
  .object({
    id: z.string().min(1),
    step: z.number().int().min(0),
    iteration: z.number().int().min(1),
    /** 1 for the first ask, 2 for the retry after a verification failure. */
    attempt: z.number().int().min(1),
    caller: CallerIdentity,
    verdict: JudgmentVerdict.optional(),
    evidence: z.array(z.string()),
    verification: Verification,
    /**
     * An answer that could not be used, as the judge gave it (its JSON up to 4,000 characters; a
     * longer one cut, as text): a replay gives it back, so it fails verification the same way.
     */
    answer: z.unknown().optional(),
    started_at: z.string(),
    ended_at: z.string(),
  })
  .strict();
export type JudgmentRecord = z.infer<typeof JudgmentRecord>;

export const PATTERN_STATUSES = ['approved', 'accepted', 'unapproved', 'escalated', 'failed'] as const;
export type PatternStatus = (typeof PATTERN_STATUSES)[number];

/**
 * What leaves the node. `approved` is true only when a judgment approved the result: an `accepted`
 * result passed its confidence threshold unjudged, an `unapproved` one is best_unapproved's, marked.
 */
export interface PatternOutcome {
  status: PatternStatus;
  result?: string;
  approved: boolean;
  /** The step and iteration the result came from. */
  from?: { step: number; iteration: number };
  iterations: number;
  judgments: JudgmentRecord[];
  reason?: string;
}
