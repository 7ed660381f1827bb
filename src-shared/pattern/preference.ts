import { PreferenceLine } from '../contracts/learning-export';
import { agree } from './agreement';
import type { AgreementRule, JudgmentRecord, JudgmentVerdict } from './contracts';

/**
 * Learning data from a pattern's judgments (issue 12): an iteration whose output was rejected,
 * followed in the same step by an iteration whose output was approved, is a preference pair — the
 * rejected output, the feedback that explained why, and the approved output that addressed it.
 */

export interface JudgedIteration {
  step: number;
  iteration: number;
  /** What the members were asked in this iteration. */
  prompt: string;
  output: string;
}

export interface PreferencePair {
  step: number;
  /** The prompt the rejected output answered. */
  prompt: string;
  rejected: string;
  feedback: string;
  chosen: string;
  /** The deciding judgment ids: the last of the rejection, the last of the approval. */
  judgments: { rejected: string; approved: string };
}

interface Decided {
  decision: ReturnType<typeof agree>;
  last: string;
}

/** The loop's decision on one iteration, from its verified verdicts (as the machine decides it). */
function decisionOf(records: readonly JudgmentRecord[], rule: AgreementRule): Decided | undefined {
  const verdicts = records.flatMap((r): JudgmentVerdict[] => (r.verification.ok && r.verdict ? [r.verdict] : []));
  const last = records.at(-1);
  return verdicts.length > 0 && last ? { decision: agree(verdicts, rule), last: last.id } : undefined;
}

export function preferencePairs(iterations: readonly JudgedIteration[], judgments: readonly JudgmentRecord[], rule: AgreementRule): PreferencePair[] {
  const decided = (it: JudgedIteration) => decisionOf(judgments.filter((j) => j.step === it.step && j.iteration === it.iteration), rule);
  const pairs: PreferencePair[] = [];
  iterations.forEach((it, i) => {
    const next = iterations[i + 1];
    if (!next || next.step !== it.step) return;
    const before = decided(it);
    const after = decided(next);
    if (before?.decision.decision !== 'rejected' || after?.decision.decision !== 'approved') return;
    if (before.decision.feedback.trim() === '' || it.output === next.output) return;
    pairs.push({ step: it.step, prompt: it.prompt, rejected: it.output, feedback: before.decision.feedback, chosen: next.output, judgments: { rejected: before.last, approved: after.last } });
  });
  return pairs;
}

/** A pattern's pair as a DPO line (the learning export's preference format): the same prompt, the approved output preferred. */
export function preferenceLineOf(pair: Pick<PreferencePair, 'prompt' | 'rejected' | 'chosen'>): PreferenceLine | undefined {
  const line = PreferenceLine.safeParse({
    input: { messages: [{ role: 'user', content: pair.prompt }] },
    preferred_output: [{ role: 'assistant', content: pair.chosen }],
    non_preferred_output: [{ role: 'assistant', content: pair.rejected }],
  });
  return line.success ? line.data : undefined;
}
