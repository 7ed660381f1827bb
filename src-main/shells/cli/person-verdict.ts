import { HumanAnswer } from '@shared/contracts/intervention';
import { SUPERVISOR_ACTION_LABELS, SupervisorAction, SUPERVISOR_ACTIONS } from '@shared/supervisor/contracts';
import { checkPersonVerdict, type PersonEscalation } from '@shared/supervisor/person-escalation';
import { SpecError } from '../../spec/spec-errors';
import { jsonObjectFlag } from './json-flag';
import { localTime } from './format-history';

/**
 * A person supervising a workflow at the command line (issue 11): `steward answer RUN --verdict
 * skip --reason …` (`--value JSON` for a substitute), the lines that show the escalation, the
 * commands that answer it, and the prompt at a terminal. Checked by the same contract and the same
 * allowed-set check the app's answers are.
 */

/** `--verdict ACTION [--reason TEXT] [--value JSON]` as the answer the host takes. */
export function verdictFromFlags(verdict: string, reason: string | undefined, valueJson: string | undefined): HumanAnswer {
  const action = SupervisorAction.safeParse(verdict);
  if (!action.success) throw new SpecError(`--verdict is one of ${SUPERVISOR_ACTIONS.join(', ')} (got "${verdict}")`);
  if ((action.data === 'substitute') !== (valueJson !== undefined)) throw new SpecError(action.data === 'substitute' ? 'a substitute needs its value: --value \'{"port": …}\'' : '--value goes with --verdict substitute only');
  const said = reason?.trim() || 'decided by a person';
  const parsed = HumanAnswer.safeParse({ action: 'verdict', verdict: { action: action.data, reason: said, ...(valueJson !== undefined ? { value: jsonObjectFlag('--value', valueJson, 'a value per output port of the node') } : {}) } });
  if (!parsed.success) throw new SpecError(`that verdict is not valid: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return parsed.data;
}

const signature = (s: PersonEscalation['escalation']['failure_signature']) =>
  [s.code !== undefined ? `code ${s.code}` : '', s.http_status !== undefined ? `HTTP ${s.http_status}` : '', s.errno !== undefined ? `errno ${s.errno}` : ''].filter(Boolean).join(' · ') || 'none';

/** The escalation for the terminal: node and item, the redacted detail, signature, candidate, the verdicts allowed. */
export function describeEscalation(wait: PersonEscalation): string[] {
  const e = wait.escalation;
  const lines = [`  node ${e.node}${e.correlation_lineage.length > 0 ? ` · ${e.invocation_key}` : ''} · attempt ${e.attempt} · signature ${signature(e.failure_signature)}`];
  lines.push(...e.detail.split('\n').map((l) => `    ${l}`));
  if (e.candidate_output !== undefined) lines.push(`  its output: ${JSON.stringify(e.candidate_output).slice(0, 500)}`);
  if (wait.feedback !== undefined) lines.push(`  asked again: ${wait.feedback}`);
  if (wait.expires_at !== undefined) lines.push(`  decide by ${localTime(wait.expires_at, true)}: then the node fails (the default verdict)`);
  lines.push(`  verdicts: ${e.allowed_actions.map((a) => `${a} (${SUPERVISOR_ACTION_LABELS[a].toLowerCase()})`).join(' · ')}`);
  return lines;
}

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** One command per allowed verdict. */
export function verdictCommands(runId: string, wait: PersonEscalation, where: string): string[] {
  return wait.escalation.allowed_actions.map((a) => `steward answer ${runId} --verdict ${a}${a === 'substitute' ? ` --value ${quote('{"PORT": "VALUE"}')}` : ''} --reason 'WHY'${where}`);
}

type Terminal = { stderr: (text: string) => void; line: (question: string) => Promise<string | undefined> };

/** The verdict at a terminal: the action (from the allowed set), a substitute's value, a reason. Undefined when the person leaves. */
export async function askVerdict(wait: PersonEscalation, io: Terminal, maxTries = 5): Promise<HumanAnswer | undefined> {
  const allowed = wait.escalation.allowed_actions;
  for (let tries = 0; tries < maxTries; tries += 1) {
    const typed = await io.line(`Your verdict (${allowed.join(' / ')}): `);
    if (typed === undefined) return undefined;
    const action = typed.trim();
    if (action === '') continue;
    let value: string | undefined;
    if (action === 'substitute') {
      value = (await io.line('The substitute value (a JSON object, a value per output port): '))?.trim();
      if (value === undefined) return undefined;
    }
    const reason = (await io.line('Why (kept in the run report; Enter for none): '))?.trim();
    if (reason === undefined) return undefined;
    try {
      const answer = verdictFromFlags(action, reason, value);
      checkPersonVerdict(wait, answer.verdict);
      return answer;
    } catch (err) {
      // A refused verdict (not allowed here, bad JSON) is said, and the person asked again.
      if (!(err instanceof Error)) throw err;
      io.stderr(`${err.message}\n`);
    }
  }
  return undefined;
}
