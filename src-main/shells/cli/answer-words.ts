import { HUMAN_ACTIONS, HumanAction, HumanAnswer, type Intervention } from '@shared/contracts/intervention';
import { SpecError } from '../../spec/spec-errors';
import { verdictCommands } from './person-verdict';
import { jsonObjectFlag } from './json-flag';

/**
 * A person's answer as words on the command line or at the prompt: `approve`, `reject`, `stop`,
 * `takeover`, `yes`, `no`, or `reply TEXT…` (the rest of the words are the reply). Checked by the
 * same contract the app's answers are (a reply is bounded; only a reply has text).
 */
export function answerFromWords(words: readonly string[], note?: string, argumentsJson?: string, evidence?: readonly string[]): HumanAnswer {
  const [first, ...rest] = words;
  const action = HumanAction.safeParse(first);
  if (!action.success) throw new SpecError(`the answer is one of ${HUMAN_ACTIONS.join(', ')} (got ${first === undefined ? 'nothing' : `"${first}"`})`);
  if (action.data !== 'reply' && rest.length > 0) throw new SpecError(`"${action.data}" takes no text (a note goes in --note)`);
  if (action.data === 'reply' && rest.join('').trim() === '') throw new SpecError('a reply needs its text: reply TEXT');
  if (action.data === 'reply' && note !== undefined) throw new SpecError('a reply is its own text: leave out --note');
  const edited = argumentsJson !== undefined ? jsonObjectFlag('--arguments', argumentsJson, "the tool call's arguments") : undefined;
  const parsed = HumanAnswer.safeParse({
    action: action.data,
    ...(action.data === 'reply' ? { text: rest.join(' ') } : {}),
    ...(note !== undefined ? { note } : {}),
    ...(edited !== undefined ? { arguments: edited } : {}),
    // A pattern judgment's evidence (--cite): the member outputs an approval or rejection rests on.
    ...(evidence !== undefined && evidence.length > 0 ? { evidence: [...evidence] } : {}),
  });
  if (!parsed.success) throw new SpecError(`that answer is not valid: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return parsed.data;
}

const quoteForShell = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** The exact commands that answer this intervention, one per answer it offers. */
export function answerCommands(runId: string, intervention: Intervention, dataDir?: string, named = false): string[] {
  const where = `${named ? ` --intervention ${intervention.id}` : ''}${dataDir !== undefined ? ` --data-dir ${quoteForShell(dataDir)}` : ''}`;
  if (intervention.supervision) return verdictCommands(runId, intervention.supervision, where);
  return intervention.options.map((action) => `steward answer ${runId} ${action === 'reply' ? "reply 'YOUR REPLY'" : action === 'reject' && intervention.judgment ? "reject --feedback 'WHAT TO FIX'" : action === 'approve' && intervention.server_input ? `approve${formArguments(intervention.server_input)}` : action}${where}`);
}

/** A tool's question (issue 30): its form's fields as the `--arguments` a person fills in. */
function formArguments(input: NonNullable<Intervention['server_input']>): string {
  const names = input.asks.flatMap((ask) => (ask.mode === 'form' ? ask.fields.map((f) => f.name) : []));
  return names.length === 0 ? '' : ` --arguments ${quoteForShell(JSON.stringify(Object.fromEntries(names.map((name) => [name, '…']))))}`;
}
