import { runStatusLabel, type RunEvent, type RunEventOf, type RunStatus } from '@shared/contracts/events';
import { ROUTE_CHOOSER_LABELS, type TakenRoute } from '@shared/contracts/routes';
import { invocationId } from '@shared/workflow/invocation';
import { partialStatusLabel, type PartialFailure } from '@shared/workflow/partial-failure';
import { invocationText } from '@shared/workflow/invocation-text';

const MARKS = { pending: '·', running: '▸', waiting: '⏸', done: '✓', failed: '✗', skipped: '–', cancelled: '■' } as const;
const WORDS = { pending: 'pending', running: 'running', waiting: 'waiting for you', done: 'done', failed: 'failed', skipped: 'skipped', cancelled: 'cancelled' } as const;

/**
 * One progress line per node invocation status change, the invocation named as the app's nodes list
 * names it (`labelOf`: the node's label, else its id): `  ▸ extract · item 3 running`.
 */
export function formatInvocation(event: RunEventOf<'node.invocation'>, labelOf: (node: string) => string = (node) => node, route?: TakenRoute): string {
  const reason = event.failure ? `: ${event.failure.message.split('\n')[0]?.slice(0, 200) ?? ''}` : '';
  const taken = route ? ` → ${route.name} (chosen by ${ROUTE_CHOOSER_LABELS[route.chosen_by]})` : '';
  return `  ${MARKS[event.status]} ${invocationText(labelOf(event.node), event.lineage)} ${WORDS[event.status]}${taken}${reason}`;
}

/**
 * A workflow run's progress lines as its events arrive: one per node invocation status change
 * (pending ones are not shown), an agent node that took one of its routes saying which and who chose
 * it (`  ✓ Triage done → support (chosen by the student)`, from its agent.finished just before).
 */
export function invocationLines(labelOf: (node: string) => string): (event: RunEvent) => string | undefined {
  const routes = new Map<string, TakenRoute>();
  return (event) => {
    if (event.type === 'agent.finished' && event.route !== undefined && event.invocation_id !== undefined) routes.set(event.invocation_id, event.route);
    if (event.type !== 'node.invocation' || event.status === 'pending') return undefined;
    return formatInvocation(event, labelOf, event.status === 'done' ? routes.get(invocationId(event.node, event.lineage)) : undefined);
  };
}

/** A workflow's node labels, as the app names its nodes: the label, else the id. */
export function nodeLabels(graph: { nodes: ReadonlyArray<{ id: string; label?: string }> } | undefined): (node: string) => string {
  const labels = new Map((graph?.nodes ?? []).map((n) => [n.id, n.label ?? n.id]));
  return (node) => labels.get(node) ?? node;
}

/** A run output for the terminal: text as it is, anything else as JSON. */
export function formatOutputs(outputs: Record<string, unknown>): string[] {
  return Object.entries(outputs).map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}`);
}

/** Failed items listed under a run's result line before "… and N more". */
const SHOWN_FAILURES = 10;

/**
 * A workflow run's result line, then (completed with failures, issue 28) one line per failed item,
 * named as the app names it, with its reason: `completed · 1 of 5 items failed · 11 node invocation(s)`,
 * `  ✗ work · item 2: check 1 (regex): …`.
 */
export function workflowResultLines(run: { status: Exclude<RunStatus, 'running'>; invocations: readonly unknown[]; message?: string; partial?: PartialFailure }, supervised = false): string[] {
  const invocations = `${run.invocations.length} node invocation(s)`;
  const partial = run.status === 'completed_with_failures' ? run.partial : undefined;
  // A supervisor's verdict carried the run: "completed — supervised", as the app's status says.
  if (!partial) return [`${runStatusLabel(run.status, supervised).toLowerCase()} · ${invocations}${run.message ? ` · ${run.message}` : ''}`];
  const total = Math.max(partial.failed.length, partial.items_failed + partial.nodes_failed);
  const shown = partial.failed.slice(0, SHOWN_FAILURES);
  return [
    `${partialStatusLabel(partial).toLowerCase()} · ${invocations}`,
    ...shown.map((f) => `  ${MARKS.failed} ${f.where}: ${f.failure.message.split('\n')[0]?.slice(0, 200) ?? ''}`),
    ...(total > shown.length ? [`  … and ${total - shown.length} more`] : []),
  ];
}
