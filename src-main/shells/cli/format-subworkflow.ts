import { runStatusLabel, type RunEvent, type RunEventOf } from '@shared/contracts/events';
import { formatInvocation, nodeLabels } from './format-workflow';

/**
 * `steward run` of a workflow whose nodes run stored workflows (issue 29): each child run's progress
 * is printed under the node that runs it, indented one step deeper per level, and its end with the
 * interventions inside it (the teacher's, a person's, the supervisor's), as the parent's report lists them.
 */
export function nestedProgress(rootRunId: string): (event: RunEvent) => string[] {
  const depth = new Map<string, number>([[rootRunId, 0]]);
  const labels = new Map<string, (node: string) => string>();
  return (event) => {
    if (event.type === 'workflow.started' && event.parent) {
      depth.set(event.run_id, (depth.get(event.parent.run_id) ?? 0) + 1);
      labels.set(event.run_id, nodeLabels({ nodes: event.nodes }));
    }
    const level = depth.get(event.run_id);
    // Only runs this command started (the root and its children) are shown; the root's own lines are printed as before.
    if (level === undefined) return [];
    const pad = '    '.repeat(level);
    if (event.type === 'subworkflow.started') return [`${pad}    ↳ ${event.tool !== undefined ? `${event.invocation_id ?? ''} calls` : `${event.invocation_id ?? ''} runs`} workflow ${event.workflow_name} (run ${event.child_run_id})`];
    if (event.type === 'subworkflow.finished') return subworkflowEnd(event, pad);
    if (level > 0 && event.type === 'node.invocation' && event.status !== 'pending') return [`${pad}${formatInvocation(event, labels.get(event.run_id))}`];
    return [];
  };
}

function subworkflowEnd(event: RunEventOf<'subworkflow.finished'>, pad: string): string[] {
  const status = event.status === 'waiting' ? 'waiting for you' : runStatusLabel(event.status, false).toLowerCase();
  const count = event.interventions.length;
  return [
    `${pad}    ↳ workflow ${event.workflow_id} ${status}${count > 0 ? ` · ${count} intervention${count === 1 ? '' : 's'}` : ''}${event.message && event.status !== 'completed' ? `: ${event.message.split('\n')[0]?.slice(0, 200) ?? ''}` : ''}`,
    ...event.interventions.map((i) => `${pad}      ⛨ ${i.node}: ${i.text.split('\n')[0] ?? ''}`),
  ];
}
