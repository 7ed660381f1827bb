import { z } from 'zod';
import type { MonitorDecision, PhasePlan, RoundFact } from './contracts';

/**
 * `next_required_action`, enforced (seed 001): what the supervisor (executor) must do next, as the
 * boundary checks it. Sources: a new phase's brief (`next_required_action` of the committee's plan,
 * a tool to call first) and the monitor's latest decision (its `next_required_action`). It holds
 * for the executor's next decision that crosses the boundary, then it is used up.
 *
 * Contradicts, exactly:
 * - `finish` (the monitor: the goal is met): any decision but `complete`.
 * - `execute` (the monitor: supervisor_execute, or a refused finish): `complete`.
 * `supervisor_continue` (the phase goes on, the executor's choice) and `committee_rethink` (the
 * committee replans first) require nothing of the executor's next decision; a finish still passes the finish gate.
 * - `tool` (the phase brief): any decision but a call of that tool.
 */
export const RequiredAction = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('finish'), why: z.string() }).strict(),
  z.object({ kind: z.literal('execute'), why: z.string() }).strict(),
  z.object({ kind: z.literal('tool'), tool: z.string().min(1), why: z.string() }).strict(),
]);
export type RequiredAction = z.infer<typeof RequiredAction>;

/** What a new phase requires first: the brief's tool, if it names one of the phase's allowed tools. */
export function requiredByPlan(plan: PhasePlan, phase: number): RequiredAction | undefined {
  const tool = plan.next_required_action;
  if (tool === undefined || !plan.allowed_tools.includes(tool)) return undefined;
  return { kind: 'tool', tool, why: `the phase ${phase} brief's next_required_action is to call ${tool} first` };
}

/** What the monitor's decision requires next; a refused finish always requires more work first. */
export function requiredByDecision(decision: MonitorDecision): RequiredAction | undefined {
  if (decision.decision === 'finish_rejected') return { kind: 'execute', why: `the monitor refused the finish (${decision.reason})` };
  switch (decision.next_required_action) {
    case 'finish':
      return { kind: 'finish', why: `the monitor's next_required_action is finish (${decision.reason})` };
    case 'supervisor_execute':
      return { kind: 'execute', why: `the monitor's next_required_action is supervisor_execute (${decision.reason})` };
    case 'supervisor_continue':
    case 'committee_rethink':
    case undefined:
      return undefined;
  }
}

/** The executor's decision, as far as the requirement is concerned. */
export interface DecisionShape {
  decision_type: string;
  tool_name?: string;
}

/** Why `decision` contradicts `required`, or undefined when it does not (a clear reason for the boundary's refusal). */
export function contradiction(required: RequiredAction, decision: DecisionShape): string | undefined {
  const what = decision.decision_type === 'tool_call' ? `a call of ${decision.tool_name ?? 'a tool'}` : decision.decision_type;
  switch (required.kind) {
    case 'finish':
      return decision.decision_type === 'complete' ? undefined : `${what} contradicts next_required_action: ${required.why}; only complete is allowed now`;
    case 'execute':
      return decision.decision_type === 'complete' ? `complete contradicts next_required_action: ${required.why}; the phase needs more work first` : undefined;
    case 'tool':
      return decision.decision_type === 'tool_call' && decision.tool_name === required.tool
        ? undefined
        : `${what} contradicts next_required_action: ${required.why}`;
  }
}

/** A round whose decision crossed the boundary (which enforced the requirement) uses it up. */
export function usesUp(fact: Pick<RoundFact, 'outcome'>): boolean {
  return fact.outcome === 'executed' || fact.outcome === 'delivered';
}
