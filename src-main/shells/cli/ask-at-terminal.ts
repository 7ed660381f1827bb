import { answerHint, HUMAN_ACTION_LABELS, INTERVENTION_KIND_LABELS, NOTE_ACTIONS, type HumanAnswer, type Intervention } from '@shared/contracts/intervention';
import { describeFallback, type PatternJudgmentAsk } from '@shared/pattern/human-ask';
import { SpecError } from '../../spec/spec-errors';
import { checkJudgmentAnswer } from '../../workflow/pattern/human-judgment';
import { answerFromWords } from './answer-words';
import { askVerdict, describeEscalation } from './person-verdict';
import { formatDecision } from './format-round';
import { provenanceLines } from './format-provenance';
import { roundNumber } from '@shared/contracts/round-number';
import { localTime } from './format-history';

export type ReadLine = (question: string) => Promise<string | undefined>;

/** How many unusable entries before the prompt gives up (the run then waits, persisted). */
const MAX_TRIES = 5;

/** The question a waiting run asks, as lines for the terminal (and for `steward answer` before it resumes). */
export function describeIntervention(intervention: Intervention): string[] {
  const lines = [`waiting for you · ${INTERVENTION_KIND_LABELS[intervention.kind].toLowerCase()} · round ${roundNumber(intervention.round)}`, `  ${intervention.reason}`];
  const asked = intervention.kind === 'ask_user' || intervention.kind === 'request_confirmation';
  if (intervention.decision && !asked) lines.push(`  decision: ${formatDecision(intervention.decision)}`, ...provenanceLines(intervention.provenance));
  if (intervention.judgment) lines.push(...describeJudgment(intervention.judgment));
  // A supervised node's escalation: its verdicts are the answers (--verdict), not the intervention's options.
  if (intervention.supervision) return [...lines, ...describeEscalation(intervention.supervision)];
  lines.push(`  answers: ${intervention.options.map((a) => `${a === 'reply' ? 'reply TEXT' : a} (${HUMAN_ACTION_LABELS[a]})`).join(' · ')}`);
  // What a refusal does here, as the app's card says it: the agent's tries left, or a step nobody can try again.
  const refusal = intervention.options.find((a) => a === 'reject' || a === 'decline');
  if (refusal) lines.push(`  ${refusal}: ${answerHint(refusal, intervention)}`);
  return lines;
}

/**
 * Asks the person at the terminal until they give an answer the intervention offers. A question
 * (`reply`) takes the typed line as the reply, or `stop`. Undefined when they leave (Ctrl+D, Ctrl+C,
 * or too many unusable entries): the caller keeps the run waiting.
 */
export async function askAtTerminal(intervention: Intervention, io: { stderr: (text: string) => void; line: ReadLine }): Promise<HumanAnswer | undefined> {
  io.stderr(`${describeIntervention(intervention).join('\n')}\n`);
  if (intervention.judgment) return askJudgment(intervention, io);
  if (intervention.supervision) return askVerdict(intervention.supervision, io, MAX_TRIES);
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
      // A rejection (and a yes or no) may tell the agent why; a declined step keeps why in the run's outcome.
      if (NOTE_ACTIONS.has(answer.action)) {
        const note = (await io.line(answer.action === 'decline' ? 'Why you don’t run it (optional, Enter to skip): ' : 'Note for the agent (optional, Enter to skip): '))?.trim();
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

/** A pattern's judgment at the terminal: the output, each member output by the id a verdict cites, the feedback it addresses, the expiry. */
function describeJudgment(ask: PatternJudgmentAsk): string[] {
  const lines = [`  ${ask.pattern_type} ${ask.node}${ask.steps > 1 ? ` · step ${ask.step + 1} of ${ask.steps}` : ''} · iteration ${ask.iteration} of ${ask.max_iterations}`];
  if (ask.previous_feedback !== undefined) lines.push(`  it addresses: ${ask.previous_feedback}`);
  if (ask.problem !== undefined) lines.push(`  asked again: ${ask.problem}`);
  lines.push('  output:', ...indent(ask.output));
  for (const o of ask.outputs) lines.push(`  [${o.id}] ${o.member_id}:`, ...indent(o.text));
  const cites = [ask.min_citations > 0 ? `at least ${ask.min_citations} output(s)` : '', ask.must_cite.length > 0 ? `one of ${ask.must_cite.join(', ')}` : ''].filter(Boolean).join(', ');
  if (cites) lines.push(`  a verdict cites ${cites} (all shown, unless you name them)`);
  if (ask.expires_at !== undefined) lines.push(`  expires ${localTime(ask.expires_at, true)}: then ${describeFallback(ask.fallback)}`);
  return lines;
}

const indent = (text: string): string[] => text.split('\n').map((l) => `    ${l}`);

/** approve / reject (then its feedback, required) / escalate (then its reason, optional); optionally the outputs cited. */
async function askJudgment(intervention: Intervention, io: { stderr: (text: string) => void; line: ReadLine }): Promise<HumanAnswer | undefined> {
  const ask = intervention.judgment;
  if (!ask) return undefined;
  for (let tries = 0; tries < MAX_TRIES; tries += 1) {
    const typed = await io.line('Your judgment (approve / reject / escalate), optionally followed by the output ids it cites: ');
    if (typed === undefined) return undefined;
    const [action, ...cited] = typed.trim().split(/\s+/);
    if (action === '' || action === undefined) continue;
    if (action !== 'approve' && action !== 'reject' && action !== 'escalate') {
      io.stderr('answer one of: approve, reject, escalate\n');
      continue;
    }
    let note: string | undefined;
    if (action === 'reject') {
      note = (await io.line('Feedback for the next iteration: '))?.trim();
      if (note === undefined) return undefined;
    } else if (action === 'escalate') {
      note = (await io.line('Why (optional, Enter to skip): '))?.trim();
    }
    try {
      const answer = answerFromWords([action], note ? note.slice(0, 2000) : undefined, undefined, action === 'escalate' ? undefined : cited);
      checkJudgmentAnswer(ask, answer);
      return answer;
    } catch (err) {
      // A refused answer (its words, its evidence, its feedback) is said, and the person asked again.
      if (!(err instanceof Error)) throw err;
      io.stderr(`${err.message}\n`);
    }
  }
  return undefined;
}
