import { HUMAN_ACTION_LABELS, INTERVENTION_KIND_LABELS, type HumanAnswer, type Intervention } from '@shared/contracts/intervention';
import { SpecError } from '../../spec/spec-errors';
import { answerFromWords } from './answer-words';
import { formatDecision } from './format-round';
import { roundNumber } from '@shared/contracts/round-number';

export type ReadLine = (question: string) => Promise<string | undefined>;

/** How many unusable entries before the prompt gives up (the run then waits, persisted). */
const MAX_TRIES = 5;

/** The question a waiting run asks, as lines for the terminal (and for `steward answer` before it resumes). */
export function describeIntervention(intervention: Intervention): string[] {
  const lines = [`waiting for you · ${INTERVENTION_KIND_LABELS[intervention.kind].toLowerCase()} · round ${roundNumber(intervention.round)}`, `  ${intervention.reason}`];
  const asked = intervention.kind === 'ask_user' || intervention.kind === 'request_confirmation';
  if (intervention.decision && !asked) lines.push(`  decision: ${formatDecision(intervention.decision)}`);
  lines.push(`  answers: ${intervention.options.map((a) => `${a === 'reply' ? 'reply TEXT' : a} (${HUMAN_ACTION_LABELS[a]})`).join(' · ')}`);
  return lines;
}

/**
 * Asks the person at the terminal until they give an answer the intervention offers. A question
 * (`reply`) takes the typed line as the reply, or `stop`. Undefined when they leave (Ctrl+D, Ctrl+C,
 * or too many unusable entries): the caller keeps the run waiting.
 */
export async function askAtTerminal(intervention: Intervention, io: { stderr: (text: string) => void; line: ReadLine }): Promise<HumanAnswer | undefined> {
  io.stderr(`${describeIntervention(intervention).join('\n')}\n`);
  const replies = intervention.options.includes('reply');
  const question = replies ? 'Your reply (or "stop"): ' : `Your answer (${intervention.options.join(' / ')}): `;
  for (let tries = 0; tries < MAX_TRIES; tries += 1) {
    const typed = await io.line(question);
    if (typed === undefined) return undefined;
    const text = typed.trim();
    if (text === '') continue;
    const words = replies && text !== 'stop' ? ['reply', text] : text.split(/\s+/);
    if (!intervention.options.some((a) => a === words[0])) {
      io.stderr(`answer one of: ${intervention.options.join(', ')}\n`);
      continue;
    }
    try {
      const answer = answerFromWords(words);
      // A rejection (and a yes or no) may tell the agent why.
      if (answer.action === 'reject' || answer.action === 'yes' || answer.action === 'no') {
        const note = (await io.line('Note for the agent (optional, Enter to skip): '))?.trim();
        return note ? answerFromWords([answer.action], note.slice(0, 2000)) : answer;
      }
      return answer;
    } catch (err) {
      if (!(err instanceof SpecError)) throw err;
      io.stderr(`${err.message}\n`);
    }
  }
  return undefined;
}
