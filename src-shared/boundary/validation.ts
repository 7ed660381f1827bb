import { Decision } from '../contracts/decision';
import type { OfferedTool, ToolSnapshot } from '../contracts/tool-snapshot';
import { validateJsonSchema } from './json-schema';
import { contradiction, type RequiredAction } from '../scs/required-action';
import type { ValidationIssue, ValidationResult } from '../contracts/validation-result';

export { VALIDATION_CODES, ValidationCode, ValidationIssue, ValidationResult } from '../contracts/validation-result';
import type { ParsedCandidate } from './parse-candidate';
import { VALIDATION_CODE_LABELS } from '../contracts/code-words';

/** Constraints from an outer layer (e.g. an SCS phase plan's allowed tools, SCS's next_required_action). */
export interface DecisionConstraints {
  allowed_tools?: readonly string[];
  allowed_decisions?: readonly Decision['decision_type'][];
  required_action?: RequiredAction;
}

export interface ValidatedDecision {
  result: ValidationResult;
  decision?: Decision;
  tool?: OfferedTool;
}

/**
 * Deterministic validation, in the order of DESIGN.md §3 step 2. The same function validates a
 * student candidate and a teacher replacement (I3): there is no second path.
 */
export function validateCandidate(
  candidate: ParsedCandidate,
  snapshot: ToolSnapshot,
  constraints: DecisionConstraints = {},
): ValidatedDecision {
  const fail = (issues: ValidationIssue[], decision?: Decision, tool?: OfferedTool): ValidatedDecision => ({
    result: { ok: false, issues },
    decision,
    tool,
  });

  if (candidate.parse_error !== undefined) {
    return fail([{ code: 'unparseable', message: candidate.parse_error }]);
  }
  if (candidate.tool_call_count > 1) {
    return fail([
      {
        code: 'parallel_tool_calls',
        message: `${candidate.tool_call_count} tool calls in one round; exactly one decision per round is allowed`,
      },
    ]);
  }
  const parsed = Decision.safeParse(candidate.raw);
  if (!parsed.success) {
    return fail(
      parsed.error.issues.map((i) => ({
        code: 'schema' as const,
        message: i.message,
        path: i.path.length ? i.path.join('.') : undefined,
      })),
    );
  }
  const decision = parsed.data;

  if (constraints.allowed_decisions && !constraints.allowed_decisions.includes(decision.decision_type)) {
    return fail([{ code: 'phase_constraint', message: `${decision.decision_type} is not allowed in this phase` }], decision);
  }
  const contradicts = constraints.required_action ? contradiction(constraints.required_action, decision) : undefined;
  if (contradicts !== undefined) return fail([{ code: 'phase_constraint', message: contradicts }], decision);
  // A node that declares routes offers them like tools: a reroute names one of this round's, or it is refused.
  if (decision.decision_type === 'reroute' && snapshot.routes !== undefined && !snapshot.routes.some((r) => r.name === decision.target)) {
    const offered = snapshot.routes.map((r) => r.name).join(', ') || 'none';
    return fail([{ code: 'route_not_offered', message: `route "${decision.target}" was not offered this round (offered: ${offered})` }], decision);
  }
  if (decision.decision_type !== 'tool_call') return { result: { ok: true, issues: [] }, decision };

  const tool = snapshot.tools.find((t) => t.name === decision.tool_name);
  if (!tool) {
    const offered = snapshot.tools.map((t) => t.name).join(', ') || 'none';
    return fail([{ code: 'tool_not_offered', message: `tool "${decision.tool_name}" was not offered this round (offered: ${offered})` }], decision);
  }
  if (constraints.allowed_tools && !constraints.allowed_tools.includes(tool.name)) {
    return fail([{ code: 'phase_constraint', message: `tool "${tool.name}" is outside the approved plan's allowed tools` }], decision, tool);
  }
  const argIssues = validateJsonSchema(tool.input_schema, tool.schema_hash, decision.arguments);
  if (argIssues.length > 0) {
    return {
      result: {
        ok: false,
        schema_hash: tool.schema_hash,
        issues: argIssues.map((i) => ({ code: 'arguments_invalid' as const, message: i.message, path: i.path })),
      },
      decision,
      tool,
    };
  }
  return { result: { ok: true, issues: [], schema_hash: tool.schema_hash }, decision, tool };
}

/** Issues as words (a person reads them in verdicts and run messages; the model in its feedback): the code's words, where, what. */
export function describeIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((i) => `${VALIDATION_CODE_LABELS[i.code]}${i.path ? ` at ${i.path}` : ''}: ${i.message}`).join('; ');
}
