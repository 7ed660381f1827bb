import { redactForEscalation } from '@shared/supervisor/redaction';
import type { Escalation } from '@shared/supervisor/contracts';
import type { Lineage } from '@shared/workflow/invocation';
import type { SupervisedRunView } from './supervise-failure';

/**
 * The model supervisor's read-only tools (seed 004 PR 3): `get_run_state` and `read_node_output`.
 * Both read what the run already recorded; nothing here can change the run. Every result is masked
 * with the run's secret registry, then by credential-named fields (as an escalation is), and
 * truncated, since a tool result goes into the supervisor's prompt. `read_node_output` is scoped to
 * the escalation's item lineage: a fan-out sibling's output (another item) is refused.
 */

export const SUPERVISOR_TOOL_NAMES = ['get_run_state', 'read_node_output'] as const;
export type SupervisorToolName = (typeof SUPERVISOR_TOOL_NAMES)[number];

/** What one tool result may put into the prompt. */
export const TOOL_RESULT_LIMIT = 4000;

const truncate = (text: string): string => (text.length <= TOOL_RESULT_LIMIT ? text : `${text.slice(0, TOOL_RESULT_LIMIT - 1)}…`);

/**
 * Registry values first (every encoded form), then credential-named fields; then cut, so a cut
 * never leaves half a registry secret. Texts are shortened between the two (only a text's tail
 * goes, and a name cut off its value has nothing left to mask), so a large output is not walked whole.
 */
function masked(run: SupervisedRunView, value: unknown): string {
  return truncate(JSON.stringify(redactForEscalation(shortened(run.secrets.mask(value)), [])) ?? 'null');
}

function shortened(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return truncate(value);
  if (value === null || typeof value !== 'object' || depth > 16) return value;
  if (Array.isArray(value)) return value.slice(0, 200).map((v) => shortened(v, depth + 1));
  return Object.fromEntries(Object.entries(value).slice(0, 200).map(([k, v]) => [k, shortened(v, depth + 1)]));
}

/** `inner` lies on `outer`'s item path: each of its fan-out steps is one of `outer`'s, in order (top-level nodes are on every path). */
export function onLineage(inner: Lineage, outer: Lineage): boolean {
  return inner.length <= outer.length && inner.every((step, i) => step.iterate === outer[i]?.iterate && step.index === outer[i]?.index);
}

export function getRunState(run: SupervisedRunView | undefined): string {
  if (!run) return 'the run state is not available';
  const nodes = run.invocations().map((r) => ({ id: r.id, node: r.node, status: r.status, ...(r.failure ? { failure: r.failure.code } : {}) }));
  return masked(run, { invocations: nodes });
}

export function readNodeOutput(run: SupervisedRunView | undefined, escalation: Escalation, node: string): string {
  if (!run) return 'the run state is not available';
  const mine = run.invocations().filter((r) => r.node === node);
  if (mine.length === 0) return `no invocation of ${node} has run`;
  // The deepest invocation on the escalation's own item path: an item's own step over the enclosing one.
  const onPath = mine.filter((r) => onLineage(r.lineage, escalation.correlation_lineage)).sort((a, b) => b.lineage.length - a.lineage.length)[0];
  if (!onPath) return `${node} ran only for other items than this escalation's; their outputs are not readable here`;
  if (onPath.outputs === undefined) {
    // This item's own invocation has nothing yet; another item's output is never offered in its place.
    const others = mine.filter((r) => !onLineage(r.lineage, escalation.correlation_lineage)).length;
    return `${onPath.id} has no output (status ${onPath.status})${others > 0 ? `; ${node} also ran for other items, whose outputs are not readable here` : ''}`;
  }
  return masked(run, { invocation: onPath.id, outputs: onPath.outputs });
}
