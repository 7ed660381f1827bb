import type { VerdictAttempt } from '@shared/contracts/round';
import { VALIDATION_CODE_LABELS } from '@shared/contracts/code-words';

/** The tool a replacement calls, read off its own keys (the replacement is untyped model output). */
function replacementTool(replacement: unknown): string | undefined {
  if (typeof replacement !== 'object' || replacement === null || !Object.hasOwn(replacement, 'tool_name')) return undefined;
  const tool: unknown = (replacement as { tool_name?: unknown }).tool_name;
  return typeof tool === 'string' && tool !== '' ? tool : undefined;
}

const list = (items: readonly string[]) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/**
 * Why a teacher verdict could not be used, as sentences a person can act on: what was refused, that
 * nothing of it ran, and what happened next. The engine's own message (`attempt.problem`) is kept for
 * a details element, never shown as the explanation. `asked_again`: a later attempt follows.
 */
export function verdictProblemWords(attempt: VerdictAttempt, askedAgain: boolean): string {
  const next = askedAgain ? ' Steward asked the teacher again (the next attempt below).' : ' No usable verdict followed: the round’s outcome below says what Steward did instead.';
  const v = attempt.verdict;
  const refused = attempt.replacement_validation && !attempt.replacement_validation.ok ? attempt.replacement_validation.issues : undefined;
  if (refused) {
    const tool = replacementTool(v?.replacement);
    const why = list([...new Set(refused.map((i) => VALIDATION_CODE_LABELS[i.code]))]);
    const offeredOnly = refused.some((i) => i.code === 'tool_not_offered')
      ? ' A replacement may only use the tools this round offered (the workflow’s servers and tool list decide which).'
      : '';
    return `The teacher’s replacement${tool ? ` (${tool})` : ''} was refused, so it never ran: ${why}.${offeredOnly}${next}`;
  }
  if (v?.verdict === 'accept') return `The teacher accepted a candidate that had failed validation, so the acceptance could not be used.${next}`;
  if (!v && !attempt.reply) return `The teacher model did not answer.${next} If it keeps failing, check that its provider is running (Model providers, in the sidebar).`;
  if (!v) return `The teacher’s reply was not a verdict Steward can read.${next}`;
  return `The teacher’s verdict could not be used.${next}`;
}
