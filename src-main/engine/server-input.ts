import type { HumanAction, HumanAnswer, Intervention } from '@shared/contracts/intervention';
import { ElicitEntrySchema } from '@shared/contracts/person-ask';
import type { RoundRecord } from '@shared/contracts/round';
import type { ServerInputAsk, ServerInputWait } from '@shared/contracts/server-input';
import { elicitationContent, type ElicitEntry } from '@shared/policy/elicitation-form';
import { setOwn } from '@shared/util/set-own';
import type { ElicitationReply } from '../mcp/client-capabilities';
import { elicitResultOf } from '../mcp/modern-client';
import type { InputRequiredPause } from '../mcp/input-pause';
import { SpecError } from '../spec/spec-errors';

/** The answers a tool's question offers: answer it (the form's entries), decline, dismiss, or stop the whole run. */
export const SERVER_INPUT_OPTIONS: HumanAction[] = ['approve', 'decline', 'cancel', 'stop'];

/** A paused call as its round left it: the question and what the checkpoint keeps to continue it. */
export interface PausedInput {
  pause: InputRequiredPause;
  round: number;
  idempotency_key: string;
  server: string;
  tool: string;
}

/** What the person is asked when a server's input request pauses a call (issue 30); never the server's `requestState`. */
export function serverInputIntervention(record: RoundRecord, paused: PausedInput, runId: string): Intervention {
  const first = paused.pause.asks[0];
  const what = paused.pause.asks.length === 1 && first ? first.message : `${paused.pause.asks.length} questions`;
  return {
    id: `${runId}:iv:${record.round}`,
    run_id: runId,
    round: record.round,
    kind: 'server_input',
    decision: record.selected?.decision,
    reason: `${paused.server}/${paused.tool} asks you: ${what}`,
    reason_codes: [],
    options: SERVER_INPUT_OPTIONS,
    requested_at: new Date().toISOString(),
    server_input: { server: paused.server, tool: paused.tool, asks: paused.pause.asks },
  };
}

/** What the checkpoint keeps to continue the call: its identity, the host's answers, the server's state untouched. */
export function serverInputWait(paused: PausedInput): ServerInputWait {
  const { pause } = paused;
  return {
    server: paused.server,
    tool: paused.tool,
    asks: pause.asks,
    round: paused.round,
    idempotency_key: paused.idempotency_key,
    responses: pause.responses,
    ...(pause.requestState !== undefined ? { request_state: pause.requestState } : {}),
  };
}

/** A form's entries from an answer's `arguments` (the app's form, `steward answer … approve --arguments JSON`): a number typed as JSON counts as its text. */
function entriesOf(answer: HumanAnswer): Record<string, ElicitEntry> {
  const entries: Record<string, ElicitEntry> = {};
  for (const [name, value] of Object.entries(answer.arguments ?? {})) {
    const entry = ElicitEntrySchema.safeParse(typeof value === 'number' && Number.isFinite(value) ? String(value) : value);
    if (!entry.success) throw new SpecError(`your answer to "${name}" is not text, a yes/no or a list of choices`);
    setOwn(entries, name, entry.data);
  }
  return entries;
}

/** The person's reply to one of the server's questions: a form's entries checked against its fields (refused in words when they do not fit). */
function replyTo(ask: ServerInputAsk, answer: HumanAnswer): ElicitationReply {
  switch (answer.action) {
    case 'approve': {
      if (ask.mode === 'url') return { action: 'accept' };
      const checked = elicitationContent(ask.fields, entriesOf(answer));
      if (!checked.ok) throw new SpecError(`your answers do not fit the form: ${Object.entries(checked.issues).map(([name, problem]) => `${name}: ${problem}`).join('; ')}`);
      return { action: 'accept', content: checked.content };
    }
    case 'decline':
      return { action: 'decline' };
    case 'cancel':
      return { action: 'cancel' };
    default:
      throw new SpecError(`"${answer.action}" does not answer a tool's question: approve (with your answers), decline, cancel or stop`);
  }
}

/** Checked before the run resumes: an answer that does not fit keeps the run waiting. */
export function checkServerInputAnswer(intervention: Intervention, answer: HumanAnswer): void {
  if (intervention.kind !== 'server_input' || answer.action === 'stop') return;
  for (const ask of intervention.server_input?.asks ?? []) replyTo(ask, answer);
}

/** The `inputResponses` the continued call sends: the host's answers and the person's, each under the server's key. */
export function inputResponsesFor(wait: ServerInputWait, answer: HumanAnswer): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(wait.responses)) setOwn(responses, key, value);
  for (const ask of wait.asks) setOwn(responses, ask.key, elicitResultOf(replyTo(ask, answer)));
  return responses;
}
