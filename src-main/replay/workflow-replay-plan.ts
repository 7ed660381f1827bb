import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import { ReplayError } from '@shared/replay/replay-spec';
import { MASK } from '@shared/util/mask';
import { planWorkflowReplay, type WorkflowReplayPlan } from '@shared/replay/workflow-replay';
import type { LoadedWorkflow } from '../workflow/load-workflow';

/** A recorded workflow run ready to run again: its graph as kept now, its inputs, its recorded answers and results. */
export interface WorkflowReplay {
  workflow: LoadedWorkflow;
  inputs: Record<string, unknown>;
  replay: WorkflowReplayPlan;
  gaps: string[];
}

/**
 * The replay of a recorded workflow run (`started`) on the workflow it names, as this host or CLI
 * holds it now (`workflow`; undefined: nobody holds it). The graph must have the nodes the run had
 * (ids and kinds): otherwise it changed since and the replay would not be of that run.
 */
export function planWorkflowRun(events: readonly RunEvent[], started: RunEventOf<'workflow.started'>, workflow: LoadedWorkflow | undefined, options: { live: boolean }): WorkflowReplay {
  const { plan, gaps } = planWorkflowReplay(events, started, options);
  if (!workflow) {
    throw new ReplayError('not_rebuildable', `workflow "${started.workflow_id}" is not known here, so its run cannot be rebuilt: replay it where the workflow is kept (the app), or give its workflow file (--spec)`);
  }
  const { graph } = workflow;
  const changed = (what: string) => new ReplayError('not_rebuildable', `workflow "${graph.id}" changed since run ${started.run_id} (${what}): a replay would not repeat that run`);
  if (graph.id !== started.workflow_id) throw changed(`the run was of "${started.workflow_id}"`);
  const now = new Map(graph.nodes.map((n) => [n.id, n.kind]));
  const then = new Map(started.nodes.map((n) => [n.id, n.kind]));
  for (const [id, kind] of then) if (now.get(id) !== kind) throw changed(now.has(id) ? `node ${id} is a ${now.get(id) ?? ''} node now, it was a ${kind} node` : `node ${id} is gone`);
  for (const id of now.keys()) if (!then.has(id)) throw changed(`node ${id} is new`);
  // An input bound for a sensitive argument is stored masked (issue 27): a replay can only give the mask on.
  const masked = Object.entries(started.inputs).flatMap(([name, value]) => (JSON.stringify(value ?? null).includes(MASK) ? [name] : []));
  if (masked.length > 0) {
    const which = masked.length > 1 ? `inputs ${masked.join(', ')} flowed into a sensitive argument and were` : `input ${masked[0] ?? ''} flowed into a sensitive argument and was`;
    if (options.live) throw new ReplayError('not_rebuildable', `${which} stored masked in run ${started.run_id}: live tools would get the mask, so replay it as a dry run`);
    gaps.push(`${which} stored masked: the replay gives the mask on`);
  }
  return { workflow, inputs: started.inputs, replay: plan, gaps };
}
