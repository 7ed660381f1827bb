import { z } from 'zod';
import { HumanFallback, MemberOutput, PatternType } from './contracts';

/**
 * What a person judging a pattern node is shown (a `pattern_judgment` intervention): the iteration's
 * outputs, what a verdict must cite, the feedback the output should address, and when the judgment
 * expires to its fallback. Everything the answer card and `steward answer` need, so neither has to
 * read the run's events.
 */
export const PatternJudgmentAsk = z
  .object({
    /** The id the judgment will be recorded under (`<node>:j<step>.<iteration>.<caller>.<attempt>`). */
    judgment_id: z.string().min(1).max(300),
    node: z.string().min(1).max(64),
    pattern_type: PatternType,
    /** The judged unit (a PIPELINE step, 0 otherwise) and how many there are. */
    step: z.number().int().min(0),
    steps: z.number().int().min(1),
    iteration: z.number().int().min(1),
    max_iterations: z.number().int().min(1),
    /** The pattern's output under judgment: what an approval lets leave the node. */
    output: z.string(),
    /** Every member output of this iteration; a verdict cites them by id. */
    outputs: z.array(MemberOutput),
    /** The feedback this output was asked to address (the previous rejection's). */
    previous_feedback: z.string().optional(),
    /** Why the previous answer could not be used (a verification failure): the person is asked once more. */
    problem: z.string().optional(),
    min_citations: z.number().int().min(0),
    must_cite: z.array(z.string()),
    /** When the host's timer hands the judgment to `fallback`; absent: it waits for the person. */
    expires_at: z.string().optional(),
    fallback: HumanFallback.optional(),
  })
  .strict();
export type PatternJudgmentAsk = z.infer<typeof PatternJudgmentAsk>;

/** True once the judgment's expiry has passed (never for one without an expiry). */
export function judgmentExpired(ask: Pick<PatternJudgmentAsk, 'expires_at'> | undefined, now: number): boolean {
  if (ask?.expires_at === undefined) return false;
  const at = Date.parse(ask.expires_at);
  return Number.isFinite(at) && now >= at;
}

/** What happens at the expiry, in words. */
export function describeFallback(fallback: PatternJudgmentAsk['fallback']): string {
  if (fallback?.kind === 'llm') return `the model profile "${fallback.profile}" judges instead`;
  return 'the pattern escalates';
}
