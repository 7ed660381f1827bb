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
  declined_by_person: 'you declined the call',
  review_unavailable: 'no teacher could review it',
  assert_failed: 'an assertion refused it',
  output_invalid: 'an output that does not fit',
  agent_failed: 'the agent did not finish',
  agent_rerouted: 'the agent asked to reroute',
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
