import { z } from 'zod';

/**
 * One model round yields exactly one decision (DESIGN.md §3). The student's output is only a
 * candidate until the boundary selects it; these schemas are the "schema of the decision" check.
 */
const confidence = z.number().min(0).max(1).optional();

export const ToolCallDecision = z
  .object({
    decision_type: z.literal('tool_call'),
    tool_name: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()),
    confidence,
  })
  .strict();

export const AskUserDecision = z
  .object({ decision_type: z.literal('ask_user'), question: z.string().min(1), confidence })
  .strict();

export const PresentResultDecision = z
  .object({ decision_type: z.literal('present_result'), content: z.string().min(1), confidence })
  .strict();

export const RequestConfirmationDecision = z
  .object({ decision_type: z.literal('request_confirmation'), message: z.string().min(1), confidence })
  .strict();

export const RerouteDecision = z
  .object({ decision_type: z.literal('reroute'), target: z.string().min(1), reason: z.string(), confidence })
  .strict();

export const CompleteDecision = z
  .object({ decision_type: z.literal('complete'), output: z.string(), confidence })
  .strict();

export const Decision = z.discriminatedUnion('decision_type', [
  ToolCallDecision,
  AskUserDecision,
  PresentResultDecision,
  RequestConfirmationDecision,
  RerouteDecision,
  CompleteDecision,
]);
export type Decision = z.infer<typeof Decision>;
export type ToolCallDecision = z.infer<typeof ToolCallDecision>;
export type DecisionType = Decision['decision_type'];
export type ControlDecision = Exclude<Decision, ToolCallDecision>;

export const DECISION_TYPES = [
  'tool_call',
  'ask_user',
  'present_result',
  'request_confirmation',
  'reroute',
  'complete',
] as const satisfies readonly DecisionType[];

/** Short human label per decision type, exhaustive by construction. */
export const DECISION_LABELS = {
  tool_call: 'Tool call',
  ask_user: 'Ask user',
  present_result: 'Present result',
  request_confirmation: 'Request confirmation',
  reroute: 'Reroute',
  complete: 'Complete',
} satisfies Record<DecisionType, string>;

export function isToolCall(d: Decision): d is ToolCallDecision {
  return d.decision_type === 'tool_call';
}
