import type { ReasonCode } from './verdict';
import type { ValidationCode } from './validation-result';

/**
 * Codes a person meets, said as words (issue 28): the app shows these and keeps the code itself for
 * details (a tooltip, the raw event); the CLI's `--json` keeps the codes.
 */

/** Why a teacher judged as it did (its verdict's reason codes). */
export const REASON_CODE_LABELS = {
  wrong_tool: 'the wrong tool',
  invalid_arguments: 'arguments that do not fit',
  unsafe_effect: 'an unsafe effect',
  policy_violation: 'against the policy',
  off_task: 'off the task',
  premature_completion: 'finished too early',
  hallucination: 'made up',
  other: 'another reason',
} satisfies Record<ReasonCode, string>;

/** Why a candidate failed validation, before any review. */
export const VALIDATION_CODE_LABELS = {
  unparseable: 'not a decision',
  schema: 'not the decision format',
  parallel_tool_calls: 'more than one tool call',
  tool_not_offered: 'a tool not offered this round',
  arguments_invalid: 'arguments the tool refuses',
  phase_constraint: 'not allowed in this phase',
  route_not_offered: 'a route not offered this round',
} satisfies Record<ValidationCode, string>;

/** A workflow node's failure codes (free strings in the contract): the ones the engine makes, in words. */
const FAILURE_CODE_LABELS: Readonly<Record<string, string>> = {
  invalid_input: 'an input it cannot use',
  input_missing: 'an input never arrived',
  template_error: 'a template that does not fill',
  tool_error: 'the tool reported an error',
  tool_blocked: 'the call was blocked',
  tool_escalated: 'the call waits for a person',
  tool_unavailable: 'the tool is not available',
  unknown_tool: 'a tool the server does not have',
  not_confirmed: 'you did not confirm the call',
  declined_by_person: 'declined by you',
  review_unavailable: 'no teacher could review it',
  assert_failed: 'an assertion refused it',
  output_invalid: 'an output that does not fit',
  agent_failed: 'the agent did not finish',
  agent_rerouted: 'the agent asked to reroute',
  route_not_taken: 'another route was taken',
  pattern_escalated: 'the pattern escalated',
  replay_mismatch: 'the recording does not match',
  cancelled: 'the run was cancelled',
  internal_error: 'an error inside Steward',
  timeout: 'it took too long',
  duplicate_execution: 'the call already ran once',
};

/** A node failure's code in words; a code without words reads as its words (underscores as spaces). */
export function failureCodeWords(code: string): string {
  return Object.hasOwn(FAILURE_CODE_LABELS, code) ? FAILURE_CODE_LABELS[code]! : code.replace(/_/g, ' ');
}

/** Whether the engine's failure code has words of its own (a message that starts with one can say them instead). */
export function hasFailureWords(code: string): boolean {
  return Object.hasOwn(FAILURE_CODE_LABELS, code);
}

/**
 * A message in words that keeps a raw reason one click away (issue 28): the words first, then
 * ` (details: RAW)` at its end. A terminal prints it whole; the app shows the words and puts RAW
 * in a closed disclosure (splitDetails).
 */
const DETAILS_OPEN = ' (details: ';

export function withDetails(words: string, raw: string | undefined): string {
  const kept = raw?.replace(/\s+/g, ' ').trim();
  return kept ? `${words}${DETAILS_OPEN}${kept})` : words;
}

/** A message's words and its raw reason (withDetails), when it has one; a message without one is all words. */
export function splitDetails(text: string): { words: string; details?: string } {
  const at = text.indexOf(DETAILS_OPEN);
  if (at < 0 || !text.endsWith(')')) return { words: text };
  return { words: text.slice(0, at), details: text.slice(at + DETAILS_OPEN.length, -1) };
}

/**
 * A run's or a node's message as a person reads it: a leading engine code ("tool_unavailable: …",
 * how a workflow's outcome names its first failure) said as words, the raw reason set apart.
 */
export function messageParts(text: string): { code?: string; codeWords?: string; words: string; details?: string } {
  const { words, details } = splitDetails(text);
  const withRaw = details === undefined ? {} : { details };
  const lead = /^([a-z]+(?:_[a-z]+)+): /.exec(words);
  if (!lead?.[1] || !hasFailureWords(lead[1])) return { words, ...withRaw };
  return { code: lead[1], codeWords: failureCodeWords(lead[1]), words: words.slice(lead[0].length), ...withRaw };
}

/** The engine's node failure codes that have words (the words sweep looks for each on every screen). */
export const WORDED_FAILURE_CODES: readonly string[] = Object.keys(FAILURE_CODE_LABELS);

/** Why the boundary did not authorize a selected decision (its denial reasons), said as words. */
const DENIAL_REASON_LABELS: Readonly<Record<string, string>> = {
  protected_unreviewed: 'not reviewed',
  confirmation_denied: 'you declined it',
  confirmation_unavailable: 'nobody could confirm it',
  confirmation_pending: 'waits for your confirmation',
  duplicate_execution: 'already ran once',
  missing_idempotency_key: 'no idempotency key',
  finish_rejected: 'finish refused',
  not_authorized: 'not authorized',
};

/** Why a round ended as it did (a round record's `reason`: the boundary's own codes), said as words. */
const ROUND_REASON_LABELS: Readonly<Record<string, string>> = {
  approved_decision_invalid: 'your approved call no longer fits',
  authorization_error: 'authorization failed',
  cancelled: 'cancelled',
  commit_error: 'not recorded',
  delivery_error: 'not delivered',
  escalation: 'escalated',
  input_required: 'the server asked you for input',
  invalid_candidate: 'not a valid decision',
  not_executable: 'not executable',
  repaired: 'repaired',
  takeover_ended: 'takeover ended',
  tool_error: 'the tool failed',
  verdict_block: 'the teacher blocked it',
  verdict_escalate: 'the teacher escalated it',
  verdict_unusable: 'no usable verdict',
  student_error: 'the student model failed',
  teacher_error: 'the teacher model failed',
};

/**
 * A round's reason or an authorization's denial in words (issue 28): the boundary's codes, the
 * validation codes, a node's failure codes; any other code reads as its words (underscores as spaces).
 */
export function roundReasonWords(code: string): string {
  for (const labels of [DENIAL_REASON_LABELS, ROUND_REASON_LABELS, VALIDATION_CODE_LABELS as Readonly<Record<string, string>>, FAILURE_CODE_LABELS]) {
    if (Object.hasOwn(labels, code)) return labels[code]!;
  }
  return code.replace(/_/g, ' ');
}

/** The round reasons and denial reasons that have words (the words sweep looks for each on every screen). */
export const WORDED_ROUND_REASONS: readonly string[] = [...Object.keys(DENIAL_REASON_LABELS), ...Object.keys(ROUND_REASON_LABELS)];
