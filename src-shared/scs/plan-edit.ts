import { allIssueWordsIn } from '../workflow/schema-problems';
import { PhasePlan } from './contracts';

/**
 * The student's edit of a committee plan: fields replacing the chosen plan's, and the result checked
 * like a committee's plan. An edit may narrow the plan's tools but never widen them: the student is
 * the executor's supervisor, not its planner, and a tool the committee did not allow is one nobody
 * reviewed in the plan (each call is still checked at the decision boundary; this keeps the plan honest).
 */
export function applyPlanEdit(chosen: PhasePlan, edit: Record<string, unknown>): { plan: PhasePlan } | { problem: string } {
  const merged = { ...chosen, ...edit };
  const edited = PhasePlan.safeParse(merged);
  // A plan's problems in words ("plan needs at least 3 entries"), never the schema's own text: a person reads them in the SCS timeline.
  if (!edited.success) return { problem: `is not a valid plan (${allIssueWordsIn(merged, edited.error.issues, 'plan')})` };
  const allowed = new Set(chosen.allowed_tools);
  const added = edited.data.allowed_tools.filter((t) => !allowed.has(t));
  if (added.length > 0) {
    const names = added.map((t) => `"${t}"`).join(', ');
    return { problem: `adds ${added.length === 1 ? 'a tool' : 'tools'} the committee did not allow (${names}); an edit may remove tools from a plan, never add them` };
  }
  return { plan: edited.data };
}
