import type { ChatMessage } from '@shared/contracts/model';
import { OUTPUT_TOKEN_BOUNDS } from '@shared/contracts/output-bound';
import { parseJsonText } from '@shared/boundary/parse-candidate';
import { JudgeVerdict, type VerdictKind } from '@shared/pattern/contracts';
import { ProviderError, UNHEALABLE_CODES, type ModelProvider } from '../../providers/provider';
import { judgeVerdictJsonSchema } from '../../workflow/pattern/judge-caller';
import type { RecordedJudgment } from './recorded-judgments';
import { FLIP_KINDS, flipBetween, type FlipKind } from './replay-verdicts';

/**
 * A past judgment put to a candidate teacher (issue 31): the judge's recorded prompt goes to it as a
 * model judge gets it (the same messages, the judge's output schema and bound), and its verdict is
 * compared with the one the pattern acted on. A judgment is no effect: a lost catch here is listed
 * (the output a judge or a person rejected would now leave the node), never the command's exit 1.
 */

export interface JudgmentCaseResult {
  judgment: RecordedJudgment;
  now?: JudgeVerdict;
  problem?: string;
  flip?: FlipKind;
  latency_ms: number;
}

/** As a judge's own retry after an answer that could not be used. */
const ATTEMPTS = 2;


/** Throws a ProviderError the rest of the cases cannot get past (unreachable, missing model, refused key, cancelled). */
export async function replayJudgment(judgment: RecordedJudgment, teacher: ModelProvider, signal?: AbortSignal): Promise<JudgmentCaseResult> {
  const context = judgment.context;
  if (!context) throw new Error('a judgment case needs its recorded prompt');
  const started = Date.now();
  let problem: string | undefined;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const messages: ChatMessage[] = problem === undefined ? context : [...context, { role: 'user', content: `Your previous answer could not be used: ${problem}\nAnswer again with the structured verdict.` }];
    try {
      const reply = await teacher.complete({
        role: 'teacher',
        messages,
        format: judgeVerdictJsonSchema(),
        max_output_tokens: OUTPUT_TOKEN_BOUNDS.judge,
        ...(signal ? { signal } : {}),
        call: { caller: 'judge', purpose: 'review', data: ['candidate', 'instructions', 'task'] },
      });
      const json = parseJsonText(reply.text);
      const parsed = json.ok ? JudgeVerdict.safeParse(json.value) : undefined;
      if (parsed?.success) {
        const flip = flipBetween<VerdictKind>(judgment.past.verdict, parsed.data.verdict, 'approved');
        return { judgment, now: parsed.data, ...(flip ? { flip } : {}), latency_ms: Date.now() - started };
      }
      problem = !json.ok ? `its verdict could not be read: ${json.error}` : `its verdict is not a judgment: ${parsed?.error.issues.map((i) => `${i.path.join('.') || 'verdict'}: ${i.message}`).join('; ') ?? ''}`;
    } catch (error) {
      if (error instanceof ProviderError && (UNHEALABLE_CODES.has(error.code) || error.code === 'cancelled')) throw error;
      problem = `the call failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return { judgment, ...(problem !== undefined ? { problem } : {}), flip: 'no_verdict', latency_ms: Date.now() - started };
}

/** Flips listed worst first (an output stopped then that would now leave), newest first within. */
export function judgmentFlipOrder(a: JudgmentCaseResult, b: JudgmentCaseResult): number {
  const byKind = FLIP_KINDS.indexOf(a.flip ?? 'no_verdict') - FLIP_KINDS.indexOf(b.flip ?? 'no_verdict');
  if (byKind !== 0) return byKind;
  if (a.judgment.started_at !== b.judgment.started_at) return a.judgment.started_at < b.judgment.started_at ? 1 : -1;
  return a.judgment.judgment_id < b.judgment.judgment_id ? -1 : 1;
}
